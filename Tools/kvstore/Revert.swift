import ArgumentParser
import KVStore

/// `kvstore revert PATH --commit N [--force]`.
struct RevertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revert",
        abstract: "Undo a commit by writing its inverse as a new commit.",
        discussion: """
            Reads commit N's entries from the journal and writes their inverse, last entry \
            first, as one new commit through the ordinary write path (closed kinds, declared \
            types, indexes, the journal): keys get their old values back, array elements go back \
            at their indexes, an inserted record is deleted, a deleted record comes back with all \
            its values. Reverting a revert redoes the commit. Prints one typed JSON line: \
            {"reverted":N,"commit":M} (M the new commit; null when nothing needed changing).

            Refused, changing nothing, when a later commit changed a key or record that commit \
            N changed (the error names it) unless --force, when the journal no longer holds \
            commit N (truncated), and for a commit that changed a kind's declaration.

            Examples:
              kvstore journal list ./store --format table    # find the commit
              kvstore revert ./store --commit 12
              kvstore revert ./store --commit 12 --force
            """
    )

    @OptionGroup var storePath: StorePathArgument<ExistingStore>

    @Option(help: ArgumentHelp("The commit to revert (the commit column of 'kvstore journal list').", valueName: "n"))
    var commit: UInt64

    @Flag(help: "Revert even when a later commit changed the same key or record (it is overwritten).")
    var force = false

    func run() throws {
        try reportingErrors {
            let store = try StoreAccess.openExisting(storePath.path)
            let made: UInt64?
            do {
                made = try store.revert(commit: commit, force: force)
            } catch let error as RevertError where error.code == .conflict {
                throw CommandError("cannot revert commit \(commit): \(error.message); --force reverts anyway")
            }
            let line: [String: Value] = ["reverted": .int(Int64(commit)), "commit": made.map { .int(Int64($0)) } ?? .null]
            let output = StandardOutput()
            output.line(TypedJSON.string(from: .dictionary(line)))
            try output.finish()
        }
    }
}
