#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import KVStore

/// `kvstore journal export PATH [--since SEQ]`: the journal as a framed, checksummed stream.
struct JournalExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the journal as a framed, checksummed binary stream on standard output.",
        discussion: """
            The stream carries the store's id, the range of sequences, and every entry from \
            --since on (through the last when the export started), each frame with a CRC-32; \
            'kvstore journal apply' reads it into another store. It works over pipes and ssh. \
            Standard output must not be a terminal.

            Examples:
              kvstore journal export ./store > store.journal
              kvstore journal export ./store --since 1200 | ssh backup kvstore journal apply ./replica
            """
    )

    @Argument(help: "The store's directory.")
    var path: String

    @Option(help: ArgumentHelp("Start at this sequence number (included).", valueName: "seq"))
    var since: UInt64 = 1

    func run() throws {
        try reportingErrors {
            if isatty(1) == 1 {
                throw CommandError("standard output is a terminal; redirect the binary stream to a file or a pipe")
            }
            let store = try StoreAccess.openForReading(path)
            try store.exportJournal(since: since) { FileDescriptorOutput.writeAll($0, to: 1) }
        }
    }
}
