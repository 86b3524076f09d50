import KVStore

/// The error of a command that commits in batches (`replicate`, `journal apply`) and failed after
/// some committed: the library's error speaks of the write that failed ("nothing was written"),
/// the user needs to know what the store holds and how to go on.
enum PartialProgress {
    /// `error`'s line, with what `store` (a path) holds of the source's journal: entries through
    /// `sequence` (`applied` of them by this run, when known), and that running `command` again
    /// continues (after freeing space, for a full disk).
    static func error(_ error: any Error, store: String, through sequence: UInt64, applied: Int?, command: String) -> CommandError {
        var message = CommandMessage.text(of: error)
        let unwritten = "; nothing was written"
        if message.hasSuffix(unwritten) { message.removeLast(unwritten.count) }
        let noSpace = (error as? StoreError)?.code == .noSpace
        return CommandError(
            "\(message); the batch being applied was not committed, but \(store) holds the source's entries through "
                + "\(sequence)\(applied.map { " (\($0) applied by this run)" } ?? ""): \(noSpace ? "free space and " : "")run '\(command)' again to continue")
    }
}
