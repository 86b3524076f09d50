import Foundation
import Testing
@testable import KVStore

@Suite("fetch: bad input and explain")
struct FetchErrorTests {
    let items: FetchStore
    init() throws { items = try FetchStore() }

    @Test("an unbound $variable, a negative limit or offset and a bad kind fail before anything is read")
    func badQueries() throws {
        let store = items.store
        let unbound = RecordQuery(kind: "item", where: try KeyPathPredicate("feed == $feed AND score > $min"), variables: ["min": 1])
        #expect(throws: KeyPathPredicateError.self) { try store.fetch(unbound) }
        let error = #expect(throws: KeyPathPredicateError.self) { try store.count(matching: unbound) }
        #expect(error?.code == .unboundVariable && error?.message.contains("$feed") == true)
        var bound = unbound
        bound.variables["feed"] = .reference(ref("feed/a"))
        #expect(try store.fetch(bound).map(\.ref.id) == ["01", "05"])
        // A subquery's own variable is bound by the subquery.
        #expect(try store.count(ofKind: "item", where: try KeyPathPredicate("SUBQUERY(tags, $t, $t == 'x').@count == 0")) == 8)
        #expect(throws: RecordQueryError(.invalidLimit, "the limit is -1; it must be 0 or more")) {
            try store.fetch(try items.query(limit: -1))
        }
        #expect(throws: RecordQueryError(.invalidOffset, "the offset is -2; it must be 0 or more")) {
            try store.fetch(try items.query(offset: -2))
        }
        #expect(throws: RecordRefError.self) { try store.fetch(RecordQuery(kind: "bad kind")) }
        #expect(throws: RecordRefError.self) { try store.explain(RecordQuery(kind: "")) }
        #expect(throws: KeyPathPredicateError.self) { try store.fetch(try items.query("title MATCHES '('")) }
    }

    @Test("explain names the plan in one line: a scan of the kind")
    func explain() throws {
        #expect(try items.store.explain(try items.query("read == NO", sort: ["published:desc"], limit: 50)).description == "scan item")
        #expect(try items.store.explain(RecordQuery(kind: "nothing")).description == "scan nothing")
        let plan = try items.store.read { txn in try QueryPlanner.plan(for: try items.query("read == NO"), in: txn) }
        #expect(plan.residual == (try KeyPathPredicate("read == NO")))
        #expect(plan.order == .sorted([]))
    }
}
