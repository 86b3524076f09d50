import Dispatch
import KVStore

/// `query … --follow`: prints the results as `query` does, then one jsonl line per change set,
/// `{"commit":N,"inserted":[ids],"deleted":[ids],"updated":[ids],"moved":[[from,to]...]}`, each
/// flushed, until SIGINT or SIGTERM (status 0) or until standard output is closed.
///
/// The lines come from ``Store/observe(_:options:onError:_:)``: commits of any process, several
/// coalesced into one line when they arrive faster than they are printed.
struct QueryFollowing {
    let query: RecordQuery
    let keys: [String]?
    let format: DumpFormat

    func run(on store: Store) throws {
        // Written only by the observation's callback, one delivery at a time, then read here
        // after the observation was cancelled.
        nonisolated(unsafe) let output = StandardOutput()
        let ended = DispatchSemaphore(value: 0)
        let failure = LockedValue<String?>(nil)
        let stopping = JournalFollowing.stopOnSignalsOrClosedOutput { ended.signal() }
        defer { stopping.forEach { $0.cancel() } }
        let token = try store.observe(query, onError: { error in
            failure.withLock { $0 = "\(error)" }
            ended.signal()
        }) { change in
            write(change, to: output)
            output.flush()
            if output.failure != nil { ended.signal() }
        }
        ended.wait()
        token.cancel()
        if let message = failure.withLock({ $0 }) { throw CommandError(message) }
    }

    /// The initial results as `query` prints them; later, the change set's line.
    private func write(_ change: LiveQueryChange, to output: StandardOutput) {
        guard change.isInitial else { return output.line(Self.line(change)) }
        var listing = RecordListing(format: format, output: output)
        for record in change.records { listing.append(keys.map { Self.projected(record, $0) } ?? record) }
        listing.finish()
    }

    /// `{"commit":N,"inserted":[ids],"deleted":[ids],"updated":[ids],"moved":[[from,to]...]}`.
    static func line(_ change: LiveQueryChange) -> String {
        func ids(_ ids: [String]) -> String { TypedJSON.string(from: .array(ids.map(Value.string))) }
        let moved = change.moved.map { "[\($0.from),\($0.to)]" }.joined(separator: ",")
        return #"{"commit":\#(change.commit),"inserted":\#(ids(change.insertedIDs)),"deleted":\#(ids(change.deletedIDs)),"#
            + #""updated":\#(ids(change.updatedIDs)),"moved":[\#(moved)]}"#
    }

    /// Only `keys` of `record`, as `--keys` prints them.
    private static func projected(_ record: Record, _ keys: [String]) -> Record {
        Record(ref: record.ref, values: record.values.filter { keys.contains($0.key) })
    }
}
