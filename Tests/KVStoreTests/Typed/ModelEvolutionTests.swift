import Foundation
import Testing
@testable import KVStore

/// Reading records written by older versions of a model: older key names, defaults for new keys,
/// and every record that does not decode at once.
@Suite struct ModelEvolutionTests {
    let t: TemporaryStore
    var store: Store { t.store }
    let task = ref("task/1")

    init() throws { t = try TemporaryStore() }

    @Test func anOlderKeyNameAndAMissingKeyWithADefaultDecode() throws {
        try store.insert(["id": "1", "title": "Write", "done": false], as: task)
        let expected = TaskV3(id: "1", name: "Write", priority: 0, done: false)
        #expect(try store.fetch(TaskV3.self, id: "1") == expected)
        #expect(try store.fetchAll(TaskV3.self) == [expected])
        #expect(try store.value(of: TaskV3.self, id: "1", \.name) == "Write")
        #expect(try store.value(of: TaskV3.self, id: "1", \.priority) == 0)
    }

    @Test func theCurrentKeyWinsThenTheNewestOlderName() throws {
        try store.insert(["id": "1", "name": "New", "label": "Mid", "title": "Old", "priority": 2, "done": true], as: task)
        #expect(try store.fetch(TaskV3.self, id: "1")?.name == "New")
        try store.insert(["id": "2", "label": "Mid", "title": "Old", "done": true], as: ref("task/2"))
        #expect(try store.fetch(TaskV3.self, id: "2")?.name == "Mid")
    }

    @Test func savingWritesTheCurrentNameAndRemovesOlderOnes() throws {
        try store.insert(["id": "1", "title": "Write", "done": false, "color": "red"], as: task)
        var model = try #require(try store.fetch(TaskV3.self, id: "1"))
        model.done = true
        try store.save(model)
        #expect(try store.record(task) == ["id": "1", "name": "Write", "priority": 0, "done": true, "color": "red"])
    }

    @Test func withoutADefaultAMissingKeyIsStillAnError() throws {
        try store.insert(["id": "1", "title": "Write"], as: task)
        let error = try #require(throws: ModelError.self) { try store.fetch(TaskV3.self, id: "1") }
        #expect(error.code == .missingKey && error.keyPath == "done" && error.ref == task)
    }

    @Test func fetchAllReportsEveryRecordThatDoesNotDecode() throws {
        try store.insert(["id": "1", "name": "Fine", "done": false], as: task)
        try store.insert(["id": "2", "name": 42, "done": false], as: ref("task/2"))
        try store.insert(["id": "3", "name": "Fine too", "done": true], as: ref("task/3"))
        try store.insert(["id": "4", "name": "No done"], as: ref("task/4"))
        let failures = try #require(throws: ModelDecodingErrors.self) { try store.fetchAll(TaskV3.self) }
        #expect(failures.errors.map(\.ref) == [ref("task/2"), ref("task/4")])
        #expect(failures.errors.map(\.keyPath) == ["name", "done"])
        #expect(failures.errors.map(\.code) == [.typeMismatch, .missingKey])
        #expect(failures.decodedCount == 2)
        #expect(failures.description
            == "2 records do not decode as TaskV3 (2 do): task/2 name: expected a string, found integer 42; task/4 done: missing, expected a bool")
    }

    @Test func aNestedKeyPathOfAFailingRecordIsNamed() throws {
        try store.insert(["id": 1, "amount": 1, "status": "sent", "customer": ["name": "Ada", "address": ["city": 7]], "lines": []],
                         as: ref("invoice/1"))
        let failures = try #require(throws: ModelDecodingErrors.self) { try store.fetchAll(Invoice.self) }
        #expect(failures.errors.map(\.description) == ["invoice/1 customer.address.city: expected a string, found integer 7"])
    }
}
