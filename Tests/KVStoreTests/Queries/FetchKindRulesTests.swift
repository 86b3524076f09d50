import Foundation
import Testing
@testable import KVStore

@Suite("fetch: a kind's rules apply to the keys a query reads")
struct FetchKindRulesTests {
    @Test("an open kind's valueForUndefinedKey hook gives computed keys to predicates, sorts and values")
    func hookOnOpenKind() throws {
        var person = try Kind("person")
        person.valueForUndefinedKey = { key, ref, txn in
            key == "fullName" ? try txn.value(forKey: "name", of: ref).map { .string("\($0.stringValue ?? "") (\(ref.id))") } : nil
        }
        let t = try TemporaryStore(kinds: [person])
        try t.store.insert(["name": "Ada"], as: ref("person/a"))
        try t.store.insert(["name": "Grace"], as: ref("person/g"))
        try t.store.insert(["name": "Alan", "fullName": "Turing"], as: ref("person/t"))
        let query = RecordQuery(kind: "person", where: try KeyPathPredicate("fullName BEGINSWITH 'A' OR fullName == 'Turing'"),
                                sortedBy: [try KeyPathSort(parsing: "fullName:desc")])
        #expect(try t.store.fetch(query).map(\.ref.id) == ["t", "a"])
        #expect(try t.store.value(forKeyPath: "fullName", matching: query) == ["Turing", "Ada (a)"])
        #expect(try t.store.distinctValues(forKeyPath: "fullName", matching: RecordQuery(kind: "person")).map(\.value)
                == ["Ada (a)", "Grace (g)", "Turing"])
    }

    @Test("a closed kind's undeclared key makes a comparison false, a sort value missing, and a key path value an error")
    func closedKind() throws {
        let t = try TemporaryStore(kinds: [try Kind("counter", keys: ["n": .int])])
        for n in [3, 1, 2] { try t.store.insert(["n": .int(Int64(n))], as: ref("counter/\(n)")) }
        #expect(try t.store.count(ofKind: "counter", where: try KeyPathPredicate("n >= 2")) == 2)
        #expect(try t.store.count(ofKind: "counter", where: try KeyPathPredicate("other == 1 OR other != 1")) == 0)
        #expect(try t.store.count(ofKind: "counter", where: try KeyPathPredicate("other == nil")) == 3)
        let sorted = RecordQuery(kind: "counter", sortedBy: [try KeyPathSort(parsing: "other"), try KeyPathSort(parsing: "n:desc")])
        #expect(try t.store.fetch(sorted).map(\.ref.id) == ["3", "2", "1"])
        #expect(throws: KeyValueCodingError.self) {
            try t.store.value(forKeyPath: "other", matching: RecordQuery(kind: "counter"))
        }
    }
}
