import Foundation
import Testing
import TestSupport
@testable import KVStore
import LMDB

private func storeError(_ expected: StoreError.Code) -> @Sendable (any Error) -> Bool {
    { ($0 as? StoreError)?.code == expected }
}

@Suite struct StoreOpeningTests {
    @Test func createsTheDirectoryAndReopensWithTheSameId() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("nested/store")
        let id = try Store(path: path).id
        try Store(path: path).insert(["a": 1], as: ref("k/1"))
        let again = try Store(path: path)
        #expect(again.id == id)
        #expect(try again.record(ref("k/1")) == ["a": 1])
    }

    @Test func withoutCreatingAMissingPathIsNoStore() throws {
        var options = Store.Options.testing
        options.createIfMissing = false
        let directory = try TemporaryDirectory()
        let path = directory.path("store")
        #expect(performing: { try Store(path: path, options: options) }, throws: storeError(.noStore))
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func aFileWhereTheDirectoryBelongsIsRefused() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store")
        try Data("hello".utf8).write(to: URL(fileURLWithPath: path))
        #expect {
            try Store(path: path)
        } throws: { error in
            (error as? StoreError)?.code == .notADirectory && "\(error)".contains(path)
        }
    }

    @Test func aDirectoryWithoutAStoreIsNotAStoreWhenNotCreating() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        var options = Store.Options.testing
        options.createIfMissing = false
        #expect(performing: { try Store(path: path, options: options) }, throws: storeError(.notAStore))
    }

    @Test(arguments: [false, true])
    func anEmptyDataFileIsNotAStoreWhenNotCreatingAndStaysEmpty(readOnly: Bool) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: path + "/data.mdb", contents: nil)
        var options = Store.Options.testing
        options.createIfMissing = false
        options.readOnly = readOnly
        #expect {
            try Store(path: path, options: options)
        } throws: { error in
            (error as? StoreError)?.code == .notAStore && "\(error)".contains("data.mdb is empty")
        }
        #expect(try FileManager.default.attributesOfItem(atPath: path + "/data.mdb")[.size] as? Int == 0)
    }

    @Test func anEmptyLMDBEnvironmentIsNotMadeAStore() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        do { _ = try Environment.open(path: path) }   // an environment with no database in it
        var options = Store.Options.testing
        options.createIfMissing = false
        #expect(performing: { try Store(path: path, options: options) }, throws: storeError(.notAStore))
        // Nor when creating: a creation never leaves one in a store's directory (see
        // StoreCreation), so it is damage, not a creation to finish.
        #expect(performing: { try Store(path: path) }, throws: storeError(.notAStore))
    }

    /// An empty data file is refused when creating too, and left as it is: never replaced by a
    /// new store with a new id.
    @Test func anEmptyDataFileIsNotReplacedByANewStore() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: path + "/data.mdb", contents: nil)
        #expect {
            try Store(path: path)
        } throws: { error in
            (error as? StoreError)?.code == .notAStore && "\(error)".contains("data.mdb is empty")
        }
        #expect(try FileManager.default.attributesOfItem(atPath: path + "/data.mdb")[.size] as? Int == 0)
    }

    @Test func aCorruptDataFileIsNotAStore() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try Data(repeating: 0x11, count: 16384).write(to: URL(fileURLWithPath: path + "/data.mdb"))
        #expect(performing: { try Store(path: path) }, throws: storeError(.notAStore))
    }

    @Test func aForeignLMDBEnvironmentIsNotAStore() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        do {
            let env = try Environment.open(path: path)
            let db = try env.openDatabase("other")
            try env.write { try $0.put(Array("k".utf8), Array("v".utf8), in: db) }
        }
        #expect(performing: { try Store(path: path) }, throws: storeError(.notAStore))
    }

    @Test func aNewerFormatIsRefusedWithAClearError() throws {
        let t = try TemporaryStore()
        try t.store.environment.write { txn in
            try txn.put(StoreLayout.MetaKey.format, withUnsafeBytes(of: UInt32(99).littleEndian, Array.init), in: t.store.databases.meta)
        }
        #expect {
            try Store(path: t.path, options: .testing)
        } throws: { error in
            (error as? StoreError)?.code == .newerFormat && "\(error)".contains("format 99")
        }
    }

    @Test func readOnlyStoresReadButRefuseWrites() throws {
        let t = try TemporaryStore()
        try t.store.insert(["a": 1], as: ref("k/1"))
        var options = Store.Options.testing
        options.readOnly = true
        let ro = try Store(path: t.path, options: options)
        #expect(try ro.record(ref("k/1")) == ["a": 1])
        #expect(performing: { try ro.setValue(2, forKey: "a", of: ref("k/1")) }, throws: storeError(.readOnly))
    }

    @Test(.tags(.subprocess), .skippedByTag) func lmdbUtilitiesReadTheStore() throws {
        let t = try TemporaryStore()
        try t.store.insert(["name": "Ada"], as: ref("person/ada"))
        for tool in ["/usr/bin/mdb_stat", "/usr/bin/mdb_dump"] {
            guard let (status, text) = try runExternalTool(tool, ["-a", t.path]) else { continue }  // lmdb-utils absent
            #expect(status == 0, "\(tool) failed")
            #expect(text.contains("records") && text.contains("journal") && text.contains("meta"))
        }
    }
}

@Suite struct StoreSharingTests {
    @Test func twoStoresOnOnePathShareTheEnvironmentAndSeeEachOthersWrites() throws {
        let t = try TemporaryStore()
        let second = try Store(path: t.path, options: .testing)
        #expect(second.environment === t.store.environment)
        try second.insert(["a": 1], as: ref("k/1"))
        #expect(try t.store.record(ref("k/1")) == ["a": 1])
        var options = Store.Options.testing
        options.readOnly = true
        let reader = try Store(path: t.path, options: options)
        #expect(try reader.record(ref("k/1")) == ["a": 1])
        #expect(performing: { try reader.delete(ref("k/1")) }, throws: { ($0 as? StoreError)?.code == .readOnly })
    }
}

@Test func reopeningWithAnotherDurabilityInOneProcessIsRefused() throws {
    let t = try TemporaryStore(options: Store.Options())   // durability full: the subject
    var options = Store.Options()
    options.durability = .noSync
    #expect {
        try Store(path: t.path, options: options)
    } throws: { error in
        (error as? StoreError)?.code == .alreadyOpen && "\(error)".contains("durability full")
    }
}
