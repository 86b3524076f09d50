import Foundation
import Testing
import TestSupport
@testable import KVStore

/// A unique index refuses a write that repeats another record's values, naming both records and
/// the index, and nothing of that write is kept.
@Suite struct UniqueIndexTests {
    static let guid = indexOn("guid", unique: true)
    static let pair = indexOn("feed", "slug", unique: true)

    let fixture: TemporaryStore
    var store: Store { fixture.store }

    init() throws {
        fixture = try indexedStore([Self.guid, Self.pair])
        try fixture.store.insert(["guid": "g1", "feed": "f", "slug": "a"], as: ref("item/1"))
    }

    func expectViolation(by other: String, _ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            try body()
            Issue.record("no unique violation", sourceLocation: sourceLocation)
        } catch let error as KeyValueCodingError {
            #expect(error.code == .uniqueViolation, sourceLocation: sourceLocation)
            #expect(error.description.contains("item/\(other)") && error.description.contains("unique index item."), "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func anInsertRepeatingAValueIsRefusedAndNothingIsWritten() throws {
        let lastSequence = try store.read { try $0.lastSequence() }
        expectViolation(by: "1") { try store.insert(["guid": "g1"], as: ref("item/2")) }
        #expect(try store.record(ref("item/2")) == nil)
        #expect(try store.read { try $0.lastSequence() } == lastSequence)
        #expect(try store.ids(Self.guid, equal: "g1") == ["1"])
        #expect(try store.findings() == [])
    }

    @Test func theErrorNamesBothRecordsAndTheIndex() throws {
        let error = try #require(throws: KeyValueCodingError.self) { try store.insert(["guid": "g1"], as: ref("item/2")) }
        #expect(error.description == "item/2: unique index item.guid refuses the write: item/1 has the same guid")
        #expect(error.ref == ref("item/2") && error.keyPath == "guid")
    }

    @Test func aSetRepeatingAValueIsRefusedAndTheRecordKeepsItsValue() throws {
        try store.insert(["guid": "g2"], as: ref("item/2"))
        expectViolation(by: "1") { try store.setValue("g1", forKey: "guid", of: ref("item/2")) }
        #expect(try store.value(forKey: "guid", of: ref("item/2")) == "g2")
        // A write that catches the error goes on without it.
        try store.write { txn in
            #expect(throws: KeyValueCodingError.self) { try txn.setValue("g1", forKey: "guid", of: ref("item/2")) }
            try txn.setValue("g3", forKey: "guid", of: ref("item/2"))
        }
        #expect(try store.ids(Self.guid, equal: "g3") == ["2"])
        #expect(try store.findings() == [])
    }

    @Test func anIntAndAnEqualDoubleAreTheSameValue() throws {
        try store.setValue(5, forKey: "guid", of: ref("item/1"))
        expectViolation(by: "1") { try store.insert(["guid": 5.0], as: ref("item/2")) }
    }

    @Test func aCompoundUniqueIndexComparesTheWholeTuple() throws {
        try store.insert(["feed": "f", "slug": "b"], as: ref("item/2"))
        try store.insert(["feed": "g", "slug": "a"], as: ref("item/3"))
        expectViolation(by: "1") { try store.insert(["feed": "f", "slug": "a"], as: ref("item/4")) }
    }

    @Test func missingValuesAndNaNRepeatFreely() throws {
        try store.insert(["other": 1], as: ref("item/2"))
        try store.insert(["other": 2], as: ref("item/3"))
        try store.insert(["guid": .double(.nan)], as: ref("item/4"))
        try store.insert(["guid": .double(.nan)], as: ref("item/5"))
        try store.insert(["guid": []], as: ref("item/6"))
        try store.insert(["guid": []], as: ref("item/7"))
        #expect(try store.findings() == [])
    }

    @Test func eachElementOfAMultiEntryUniqueIndexIsChecked() throws {
        let fixture = try indexedStore([indexOn("emails", unique: true)])
        try fixture.store.insert(["emails": ["a@x", "b@x", "a@x"]], as: ref("item/1"))  // its own repeat is fine
        #expect(throws: KeyValueCodingError.self) { try fixture.store.insert(["emails": ["c@x", "b@x"]], as: ref("item/2")) }
        try fixture.store.setValue(["a@x"], forKey: "emails", of: ref("item/1"))
        try fixture.store.insert(["emails": ["c@x", "b@x"]], as: ref("item/2"))
    }

    @Test func longValuesThatShareTheirStartAreToldApart() throws {
        let start = String(repeating: "x", count: 300)
        try store.setValue(.string(start + "1"), forKey: "guid", of: ref("item/1"))
        try store.insert(["guid": .string(start + "2")], as: ref("item/2"))  // same cut key, different value
        expectViolation(by: "1") { try store.insert(["guid": .string(start + "1")], as: ref("item/3")) }
        #expect(try store.entries(Self.guid).map(\.flags) == [.inexact, .inexact])
        #expect(try store.findings() == [])
    }

    @Test func buildingAUniqueIndexOverRepeatedValuesIsRefused() throws {
        let fixture = try TemporaryStore()
        try fixture.store.insert(["code": "x"], as: ref("item/a"))
        try fixture.store.insert(["code": "x"], as: ref("item/b"))
        var kind = try Kind("item")
        kind.indexes = [indexOn("code", unique: true)]
        #expect(throws: KeyValueCodingError.self) { try fixture.store.register(kind) }
        #expect(fixture.store.kind(named: "item") == nil)
        #expect(try fixture.store.read { try $0.builtIndexes() } == [])
    }
}
