import Foundation
import Synchronization
import Testing
@testable import KVStore

/// Predicates built in Swift escape the parser's nesting cap: evaluating one must refuse it, and
/// printing it must not recurse.
@Suite("KeyPathPredicate values built in Swift, nested deeply")
struct PredicateBuiltNestingTests {
    static let comparison = compare(path("a"), .equal, .constant(1))

    /// Predicates nested `levels` deep as the parser counts, one of each shape (NOT, AND inside
    /// AND, lists, subqueries), with how the text of each starts and ends.
    static func deepPredicates(_ levels: Int) -> [(KeyPathPredicate, prefix: String, suffix: String)] {
        var not = comparison, and = KeyPathPredicate.and([comparison, comparison]), list = KeyPathExpression.constant(1)
        var subquery = comparison
        for _ in 0 ..< levels {
            not = .not(not)
            and = .and([comparison, and])
            list = .list([list])
            subquery = compare(.subquery(PredicateSubquery(collection: path("l"), variable: "x", predicate: subquery)), .equal, .list([]))
        }
        return [
            (not, String(repeating: "NOT ", count: 3), "NOT a == 1"),
            (and, "a == 1 AND (a == 1 AND (", "a == 1 AND a == 1" + String(repeating: ")", count: levels)),
            (compare(path("a"), .in, list), "a IN {{{", "{1" + String(repeating: "}", count: levels)),
            (subquery, "SUBQUERY(l, $x, SUBQUERY(l, $x, ", "a == 1" + String(repeating: ") == {}", count: levels)),
        ]
    }

    @Test("a predicate built 100,000 levels deep is refused by evaluate and printed without recursion, on a 512 KiB stack")
    func hundredThousandLevels() throws {
        let fixture = try TemporaryStore()
        let store = fixture.store
        let record = try store.insert(["a": 1, "l": [1]], kind: "k")
        let outcomes = Mutex<[String]>([])
        // Releasing a value this deep recurses in the Swift runtime: build and drop it on a large stack.
        runOnThread(stackSize: 1 << 30) {
            let predicates = Self.deepPredicates(100_000)
            let shared = Mutex<[(KeyPathPredicate, prefix: String, suffix: String)]>(predicates)
            runOnThread(stackSize: 512 * 1024) {
                for (predicate, prefix, suffix) in shared.withLock({ $0 }) {
                    let text = predicate.description
                    var outcome = "\(text.hasPrefix(prefix)) \(text.hasSuffix(suffix))"
                    do {
                        _ = try store.read { try $0.evaluate(predicate, on: record) }
                    } catch let error as KeyPathPredicateError {
                        outcome += " \(error.code)"
                    } catch {
                        outcome += " \(error)"
                    }
                    outcomes.withLock { $0.append(outcome) }
                }
            }
            shared.withLock { $0 = [] }
        }
        #expect(outcomes.withLock { $0 } == Array(repeating: "true true nestedTooDeeply", count: 4))
    }

    @Test("a built predicate at the parser's cap evaluates; one level more is refused before anything is read")
    func atTheCap() throws {
        let fixture = try TemporaryStore()
        let record = try fixture.store.insert(["a": 1, "l": [1]], kind: "k")
        let limit = KeyPathPredicate.maximumNesting
        let subqueries = limit / KeyPathPredicate.subqueryNestingCost
        // A top-level AND or OR costs nothing (the parser needs no parentheses for it); one inside
        // another, or inside NOT, costs a level, as its parentheses do.
        let fits = Self.deepPredicates(limit).prefix(3).map(\.0) + [Self.deepPredicates(subqueries)[3].0]
        let tooDeep = Self.deepPredicates(limit + 1).prefix(3).map(\.0) + [Self.deepPredicates(subqueries + 1)[3].0]
        try fixture.store.read { (txn) throws in
            #expect(try fits.map { try txn.evaluate($0, on: record) } == [true, true, false, true])
            for predicate in fits {
                #expect(try KeyPathPredicate(predicate.description) == predicate, "\(predicate.description.prefix(30))")
            }
            for predicate in tooDeep {
                #expect(throws: KeyPathPredicateError(.nestedTooDeeply, "the predicate nests deeper than \(limit) levels")) {
                    try txn.evaluate(predicate, on: RecordRef("k/missing"))
                }
            }
        }
    }
}

/// Runs `body` on a new thread with the stack size given, and waits for it.
func runOnThread(stackSize: Int, _ body: @escaping @Sendable () -> Void) {
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        body()
        done.signal()
    }
    thread.stackSize = stackSize
    thread.start()
    done.wait()
}
