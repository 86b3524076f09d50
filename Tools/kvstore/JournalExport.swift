#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import Dispatch
import KVStore

/// `kvstore journal export PATH [--since SEQ] [--follow]`: the journal as a framed, checksummed stream.
struct JournalExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the journal as a framed, checksummed binary stream on standard output.",
        discussion: """
            The stream carries the store's id, the range of sequences, and every entry from \
            --since on (through the last when the export started), each frame with a CRC-32; \
            'kvstore journal apply' reads it into another store. It works over pipes and ssh. \
            Standard output must not be a terminal. A --since the journal was truncated past is \
            an error naming the first entry it holds (without --since, the stream starts there).

            --follow writes an open-ended stream: the entries there now, then each commit as it \
            is committed (by any process), never splitting a commit, until SIGINT or SIGTERM \
            (exit 0, after closing the stream with its end frame) or until standard output closes.

            Examples:
              kvstore journal export ./store > store.journal
              kvstore journal export ./store --since 1200 | ssh backup kvstore journal apply ./replica
              kvstore journal export ./store --follow > live.journal
            """
    )

    @OptionGroup var storePath: StorePathArgument<ExistingStore>

    @Option(help: ArgumentHelp("Start at this sequence number (included; default: the first entry held).", valueName: "seq"))
    var since: UInt64?

    @Flag(help: "Keep writing new commits as they are committed, until interrupted.")
    var follow = false

    func run() throws {
        try reportingErrors {
            if isatty(1) == 1 {
                throw CommandError("standard output is a terminal; redirect the binary stream to a file or a pipe")
            }
            let store = try StoreAccess.openForReading(storePath.path)
            try JournalStart.check(since: since, in: store)
            let follow = follow
            let output: ([UInt8]) throws -> Void = { bytes in
                guard let failure = FileDescriptorOutput.writeAll(bytes, to: 1) else { return }
                // A closed pipe ends the export quietly: its reader has what it wanted. A follow
                // export ends when standard output closes (see stopOnSignalsOrClosedOutput).
                if failure == EPIPE {
                    if follow { return }
                    throw OutputClosed()
                }
                throw CommandError("writing the stream to standard output failed: \(String(cString: strerror(failure)))")
            }
            guard follow else {
                do {
                    try store.exportJournal(since: since ?? 1, to: output)
                } catch is OutputClosed {}
                return
            }
            var stopping: [any DispatchSourceProtocol] = []
            defer { stopping.forEach { $0.cancel() } }
            try store.exportJournal(since: since ?? 1, following: JournalFollowOptions(), onStart: { follower in
                stopping = JournalFollowing.stopOnSignalsOrClosedOutput { follower.stop() }
            }, to: output)
        }
    }
}

/// Standard output's reader went away (`EPIPE`): the export stops, with success.
private struct OutputClosed: Error {}
