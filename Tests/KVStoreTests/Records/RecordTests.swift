import Foundation
import Testing
@testable import KVStore

@Suite struct RecordRefTests {
    @Test func parsesKindAndIdAtTheFirstSlash() throws {
        let r = try RecordRef("invoice/2024/001")
        #expect(r.kind == "invoice")
        #expect(r.id == "2024/001")
        #expect(r.description == "invoice/2024/001")
    }

    @Test(arguments: [
        ("person", "the kind may hold only"),  // no slash is caught before
        ("/ada", "the kind is empty"),
        ("person/", "the id is empty"),
        ("per son/ada", "the kind may hold only"),
        ("1person/ada", "the kind may hold only"),
        ("person/a\u{0}da", "control character"),
        ("person/a\nb", "control character"),
    ])
    func rejectsInvalidReferences(text: String, problem: String) {
        #expect {
            _ = try RecordRef(text)
        } throws: { error in
            let description = "\(error)"
            return description.hasPrefix("invalid record reference") &&
                (description.contains(problem) || description.contains("KIND/ID"))
        }
    }

    /// The error quotes the reference as it was written, not the part found wrong.
    @Test(arguments: [("/ada", "the kind is empty"), ("ada/", "the id is empty"), ("no kind/1", "the kind may hold only"),
                      ("9to5/x", "the kind may hold only"), ("note/a\u{7}", "the id contains a control character")])
    func aParseErrorQuotesTheReferenceAsWritten(_ text: String, _ problem: String) {
        #expect {
            try RecordRef(text)
        } throws: { error in
            let error = error as? RecordRefError
            return error?.ref == text && error?.problem.hasPrefix(problem) == true
        }
    }

    @Test func rejectsKeysLongerThanLMDBAllows() {
        let id = String(repeating: "x", count: 600)
        #expect(throws: RecordRefError.self) { try RecordRef(kind: "k", id: id) }
        let fits = String(repeating: "x", count: RecordRef.maxKeyLength - 2)
        #expect(throws: Never.self) { try RecordRef(kind: "k", id: fits) }
    }
}

@Suite struct RecordTests {
    @Test func insertFetchDelete() throws {
        let t = try TemporaryStore()
        let ada = ref("person/ada")
        try t.store.insert(["name": "Ada", "nothing": .null], as: ada)
        #expect(try t.store.record(ada) == ["name": "Ada"])
        try t.store.delete(ada)
        #expect(try t.store.record(ada) == nil)
    }

    @Test func insertingAnExistingRecordIsAnErrorAndChangesNothing() throws {
        let t = try TemporaryStore()
        let ada = ref("person/ada")
        try t.store.insert(["name": "Ada"], as: ada)
        #expect { try t.store.insert(["name": "Other"], as: ada) } throws: {
            ($0 as? KeyValueCodingError)?.code == .recordExists
        }
        #expect(try t.store.record(ada) == ["name": "Ada"])
        #expect(try t.store.journalEntries().count == 1)
    }

    @Test func deletingAMissingRecordIsAnError() throws {
        let t = try TemporaryStore()
        #expect { try t.store.delete(ref("person/nobody")) } throws: {
            ($0 as? KeyValueCodingError)?.code == .recordNotFound
        }
    }

    @Test func generatedIdsAreUniqueAndSortInInsertionOrder() throws {
        let t = try TemporaryStore()
        var refs: [RecordRef] = []
        for i in 0..<200 { refs.append(try t.store.insert(["n": .int(Int64(i))], kind: "item")) }
        #expect(Set(refs).count == 200)
        let listed = try t.store.records(ofKind: "item").map(\.ref)
        #expect(listed == refs.sorted())
        #expect(refs.allSatisfy { UUID(uuidString: $0.id) != nil && $0.id.dropFirst(14).first == "7" })
        // Many in one millisecond still come out in order.
        let burst = (0..<5000).map { _ in RecordID.generate(now: Date(timeIntervalSince1970: 1_600_000_000)) }
        #expect(burst == burst.sorted() && Set(burst).count == burst.count)
    }

    @Test func enumeratesOneKindInIdOrderAndCounts() throws {
        let t = try TemporaryStore()
        try t.store.write { txn in
            for id in ["b", "a", "c"] { try txn.insert(["id": .string(id)], as: ref("person/\(id)")) }
            try txn.insert([:], as: ref("persona/x"))  // a kind whose name extends another's
            try txn.insert([:], as: ref("pet/rex"))
        }
        #expect(try t.store.records(ofKind: "person").map(\.ref.id) == ["a", "b", "c"])
        #expect(try t.store.count(ofKind: "person") == 3)
        #expect(try t.store.count(ofKind: "persona") == 1)
        #expect(try t.store.count(ofKind: "nothing") == 0)
        let kinds = try t.store.read { try $0.kinds() }
        #expect(kinds.map(\.kind) == ["person", "persona", "pet"])
        try t.store.delete(ref("pet/rex"))
        #expect(try t.store.read { try $0.kinds() }.map(\.kind) == ["person", "persona"])
        var all: [String] = []
        try t.store.read { txn in try txn.forEachRecord { all.append($0.ref.description); return true } }
        #expect(all == ["person/a", "person/b", "person/c", "persona/x"])
    }

    @Test func enumerationWithAnInvalidKindIsAnError() throws {
        let t = try TemporaryStore()
        #expect(throws: RecordRefError.self) { try t.store.records(ofKind: "bad kind") }
    }

    @Test func largeRecordsSpillToOverflowPagesAndRoundTrip() throws {
        let t = try TemporaryStore()
        let big = Value.bytes(Data(repeating: 0x5A, count: 200_000))
        try t.store.insert(["blob": big, "n": 1], as: ref("file/one"))
        #expect(try t.store.value(forKey: "blob", of: ref("file/one")) == big)
        #expect(try t.store.value(forKey: "n", of: ref("file/one")) == 1)
    }
}

@Test func countsInsideAWriteIncludeItsOwnInsertsAndDeletes() throws {
    let t = try TemporaryStore()
    try t.store.insert([:], as: ref("a/1"))
    try t.store.write { txn in
        try txn.insert([:], as: ref("a/2"))
        try txn.insert([:], as: ref("b/1"))
        #expect(try txn.count(ofKind: "a") == 2)
        try txn.delete(ref("a/1"))
        try txn.delete(ref("a/2"))
        #expect(try txn.count(ofKind: "a") == 0)
        #expect(try txn.kinds().map(\.kind) == ["b"])
    }
    #expect(try t.store.count(ofKind: "a") == 0)
    #expect(try t.store.read { try $0.kinds() }.map(\.kind) == ["b"])
}
