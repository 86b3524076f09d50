import Foundation
import Testing
@testable import KVStore

@Suite("KeyPathPredicate to-many, key paths and subqueries")
struct PredicateToManyTests {
    let store: PredicateStore
    init() throws { store = try PredicateStore() }

    @Test("key paths through dictionaries and references; a dangling reference is missing")
    func keyPaths() throws {
        #expect(try store.holds("address.city == 'London'"))
        #expect(try store.holds("customer.city == 'Oslo' AND customer.name BEGINSWITH 'O'", store.invoice))
        #expect(try !store.holds("customer.city == 'Oslo'", store.empty))
        #expect(try store.holds("customer.city == nil", store.empty))
    }

    @Test("ANY, SOME, ALL and NONE over arrays and key paths that cross them")
    func quantifiers() throws {
        let cases: [(String, Bool)] = [
            ("ANY tags == 'poetry'", true), ("SOME tags BEGINSWITH 'm'", true), ("ANY tags == 'art'", false),
            ("ALL tags.@count > 0", true), ("ALL scores > 80", false), ("ALL tags LIKE '*'", true),
            ("NONE tags == 'art'", true), ("NONE tags ==[c] 'STRASSE'", false),
            ("ANY scores == nil", true), ("ALL scores != nil", false),
            ("ANY name == 'Ada'", true), ("ALL name == 'Ada'", true),   // a single value is a collection of one
            ("ANY nickname == 'x'", false), ("ALL nickname == 'x'", false), ("NONE nickname == 'x'", true),
        ]
        for (text, expected) in cases { #expect(try store.holds(text) == expected, "\(text)") }
        #expect(try store.holds("ALL tags == 'x'", store.oslo))  // ALL over an empty array holds
        #expect(try !store.holds("ANY tags == 'x'", store.oslo))
        let lines: [(String, Bool)] = [
            ("ANY lines.sku == 'B'", true), ("ALL lines.amount >= 10", true), ("ALL lines.qty >= 1", false),
            ("NONE lines.qty > 2", true), ("ANY lines.tags == 'x'", true), ("ALL lines.sku IN {'A', 'B', 'C'}", true),
            ("ALL lines.tags IN {'x', 'y'}", false),  // line C has no tags: a null element
            ("ANY people.name == 'Olav'", true), ("ALL people.name != nil", false),
        ]
        for (text, expected) in lines { #expect(try store.holds(text, store.invoice) == expected, "\(text)") }
    }

    @Test("without a quantifier an array on the left compares ANY element; arrays on both sides compare whole")
    func implicitAny() throws {
        #expect(try store.holds("tags == 'math'") && store.holds("tags CONTAINS[c] 'POE'") && !store.holds("tags == 'art'"))
        #expect(try store.holds("lines.sku == 'C'", store.invoice) && store.holds("lines.tags == 'y'", store.invoice))
        #expect(try store.holds("lines.amount > 50", store.invoice) && !store.holds("lines.amount > 60", store.invoice))
        #expect(try store.holds("tags == {'math', 'poetry', 'Straße'}") && !store.holds("tags == {'math'}"))
        #expect(try store.holds("tags != {'math'}"))
        #expect(try store.holds("'poetry' IN tags") && !store.holds("'art' IN tags"))
        #expect(try store.holds("scores == 85.5"))
    }

    @Test("collection operators inside predicates")
    func collectionOperators() throws {
        #expect(try store.holds("tags.@count > 2 AND tags.@count == 3"))
        #expect(try store.holds("lines.@sum.amount == 115.5 AND lines.@sum.qty == 3", store.invoice))
        #expect(try store.holds("lines.@sum.amount >= 100 AND lines.@max.amount == 60 AND lines.@min.qty == 1", store.invoice))
        #expect(try store.holds("lines.@avg.qty == 1.0", store.invoice))
        #expect(try store.holds("lines.@count == 0 AND lines.@sum.amount == 0", store.empty))
        #expect(try store.holds("nickname.@count == 0"))
        #expect(try !store.holds("tags.@sum > 0"))  // a sum of strings has no value
    }

    @Test("SUBQUERY filters a collection, with its variable bound to each element")
    func subqueries() throws {
        #expect(try store.holds("SUBQUERY(lines, $l, $l.qty > 1).@count > 0", store.invoice))
        #expect(try store.holds("SUBQUERY(lines, $l, $l.qty >= 1).@count == 2", store.invoice))
        #expect(try store.holds("SUBQUERY(lines, $l, $l.qty == nil).@sum.amount == 10", store.invoice))
        #expect(try store.holds("SUBQUERY(people, $p, $p.tags.@count > 0).@count == 1", store.invoice))
        #expect(try store.holds("SUBQUERY(tags, $t, $t BEGINSWITH 'm' OR $t ENDSWITH 'y') == {'math', 'poetry'}"))
        #expect(try store.holds(
            "SUBQUERY(lines, $l, SUBQUERY($l.tags, $t, $t == $tag).@count > 0).@count == $n", store.invoice,
            ["tag": "y", "n": 2]
        ))
        #expect(try store.holds("SUBQUERY(lines, $l, $l.sku MATCHES[c] '[ab]').@count == 2", store.invoice))
        #expect(try store.holds("SUBQUERY(lines, $l, $l.amount > 1000).@count == 0", store.invoice))
        #expect(try store.holds("SUBQUERY(nickname, $x, TRUEPREDICATE).@count == 0"))
    }
}
