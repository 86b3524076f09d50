import Foundation
import Testing
@testable import KVStore

@Suite("KeyPathPredicate MATCHES cost")
struct PredicateMatchesCostTests {
    let store: PredicateStore
    init() throws { store = try PredicateStore() }

    @Test("a pattern that backtracks exponentially is an error after a bounded amount of work, not a wrong false")
    func catastrophicBacktracking() throws {
        // Each needs billions of steps. ICU gives up after some 40 million and reports no match:
        // a wrong false for the second, whose `a+b` matches.
        let a30 = String(repeating: "a", count: 30)
        for (string, pattern) in [(a30, "(a+)+b"), (a30 + "b", "(a+)+c|a+b"), (a30 + "aaaaaa", "(a|aa)*c"), (a30, "(a|a)*b")] {
            let started = ContinuousClock.now
            let message = "'\(pattern)' takes more than \(StringMatching.maximumSteps) steps to match one value; simplify the MATCHES pattern"
            #expect(throws: KeyPathPredicateError(.regularExpressionTooCostly, message), "\(pattern)") {
                try store.holds("'\(string)' MATCHES '\(pattern)'")
            }
            #expect(ContinuousClock.now - started < .seconds(10))
        }
    }

    @Test("a long value that a pattern matches in linear time is matched, not refused")
    func longLinearMatch() throws {
        let fixture = try TemporaryStore()
        let long = String(repeating: "ab", count: 500_000) + "c"
        let record = try fixture.store.insert(["text": .string(long)], kind: "doc")
        try fixture.store.read { (txn) throws in
            #expect(try txn.evaluate(KeyPathPredicate("text MATCHES '(?:ab)*c'"), on: record))
            #expect(try txn.evaluate(KeyPathPredicate("text MATCHES[c] '.*B.*C'"), on: record))
            #expect(try !txn.evaluate(KeyPathPredicate("text MATCHES '(?:ab)*'"), on: record))
        }
    }
}
