import Foundation
import Testing
import KVStore  // not @testable: the examples use the public API only

/// The examples of the predicates' `///` comments and of the PredicateLanguage article, run.
@Suite("KeyPathPredicate doc examples")
struct PredicateDocExampleTests {
    @Test("KeyPathPredicate: parsed and built in Swift, printed")
    func valueExample() throws {
        let unread = try KeyPathPredicate("feed.title ==[cd] $feed AND read == NO AND ANY tags IN {'swift', 'lmdb'}")
        #expect(unread.description == #"feed.title ==[cd] $feed AND read == FALSE AND ANY tags IN {"swift", "lmdb"}"#)
        let same: KeyPathPredicate = .and([
            .comparison(PredicateComparison(.keyPath(try KeyValuePath("age")), .greaterOrEqual, .constant(18))),
            .not(.comparison(PredicateComparison(.keyPath(try KeyValuePath("name")), .beginsWith, .constant("A")))),
        ])
        #expect(same.description == #"age >= 18 AND NOT name BEGINSWITH "A""#)
        #expect(try KeyPathPredicate("age >= 18 AND NOT name BEGINSWITH 'A'") == same)
    }

    @Test("KeyPathPredicateError: one line with the position")
    func errorExample() {
        #expect(throws: KeyPathPredicateError.self) { try KeyPathPredicate("age >= ") }
        do {
            _ = try KeyPathPredicate("age >= ")
        } catch {
            #expect("\(error)" == "expected a value after '>=' at line 1, column 8")
        }
    }

    @Test("evaluate(_:on:variables:) and the article's example")
    func evaluateExample() throws {
        let t = try TemporaryStore()
        let store = t.store
        let oslo = try store.insert(["city": "Oslo"], kind: "customer")
        let invoice = try store.insert([
            "customer": .reference(oslo), "lines": [["qty": 2, "amount": 80], ["qty": 1, "amount": 30]],
        ], kind: "invoice")
        let big = try KeyPathPredicate("""
            lines.@sum.amount >= $minimum AND customer.city ==[cd] 'oslo'
            AND SUBQUERY(lines, $l, $l.qty > 1).@count > 0
            """)
        let matches = try store.read { txn in
            try txn.evaluate(big, on: invoice, variables: ["minimum": 100])
        }
        #expect(matches)
        #expect(try KeyPathPredicate(big.description) == big)
        #expect(try !store.read { try $0.evaluate(big, on: invoice, variables: ["minimum": 111]) })
    }
}
