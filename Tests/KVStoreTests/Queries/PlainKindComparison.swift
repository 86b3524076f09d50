import Foundation
import Testing
import TestSupport
@testable import KVStore

extension TemporaryStore {
    /// Runs `query` (of the indexed kind `item`) counting its work, and expects its ids and its
    /// count to be those of the same query over the unindexed copy `plain`.
    func runAgainstPlain(
        _ query: RecordQuery, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (ids: [String], statistics: QueryStatistics, plan: QueryPlan) {
        var plain = query
        plain.kind = "plain"
        return try store.read { txn in
            let statistics = QueryStatistics()
            var ids: [String] = []
            try txn.forEachRecord(matching: query, keys: nil, statistics: statistics) { record in
                ids.append(record.ref.id)
                return true
            }
            #expect(ids == (try txn.fetch(plain).map(\.ref.id)), "\(query.predicate) \(query.sort)", sourceLocation: sourceLocation)
            #expect(try txn.count(matching: query) == txn.count(matching: plain), "\(query.predicate)", sourceLocation: sourceLocation)
            return (ids, statistics, try QueryPlanner.plan(for: query, in: txn))
        }
    }
}
