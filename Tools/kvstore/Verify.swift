import ArgumentParser
import KVStore

/// `kvstore verify PATH`: checks a store's records, counters and journal.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check a store: records, counters, journal, and the journal against the records.",
        discussion: """
            First checks every page of the store's file as LMDB reads it (page headers, nodes, \
            key order, links between pages) and lists each damaged page; what depends on a \
            damaged page is not read. Then checks that every record key is a valid KIND/ID and \
            every record decodes, with only keys a key path can name; that the per-kind \
            counters match the records; that the \
            journal is contiguous from its first entry to the last-sequence counter, every entry \
            decodes and matches its sequence, and commit ids never go back. When the journal \
            reaches back to the store's creation (sequence 1), it is replayed into a temporary \
            store and compared with the records.

            Exit status: 0 healthy (one summary line on standard output); 1 problems found (one \
            line each, then the summary); 2 the store could not be checked (one line on standard \
            error). It reads one snapshot of the store, so other processes may write meanwhile \
            (what they commit after it started is not checked).

            Example:
              kvstore verify ./store
            """
    )

    @OptionGroup var storePath: StorePathArgument<ExistingStore>

    func run() throws {
        var healthy = true
        try reportingErrors(status: 2) {
            let report: VerificationReport
            do {
                let store = try StoreAccess.openForReading(storePath.path)
                let progress = Progress(label: "verifying", unit: "records and entries")
                do {
                    report = try store.verify { progress.advance(by: $0) }
                } catch {
                    progress.clear()
                    throw error
                }
                progress.finish()
            } catch let error as StoreError where error.code == .damaged {
                // The pages LMDB reads to open the store are damaged: check the file without it.
                report = try Store.verifyPages(atPath: storePath.path)
                if report.isHealthy { throw error }
            }
            let output = StandardOutput()
            output.lines(report.findings)
            if report.unlisted > 0 { output.line("… and \(report.unlisted) more problems") }
            output.line(report.summary)
            try output.finish()
            healthy = report.isHealthy
        }
        if !healthy { throw ExitCode.failure }
    }
}
