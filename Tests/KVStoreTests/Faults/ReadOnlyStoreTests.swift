import Foundation
import Testing
import TestSupport
@testable import KVStore

/// A store opened with ``Store/Options/readOnly``, or lying on a read-only file system: reads work;
/// every write path fails with one ``StoreError/Code/readOnly`` error and the data file is
/// unchanged, byte for byte.
@Suite struct ReadOnlyStoreTests {
    /// Every way the API writes to a store, named for the failure messages.
    static let writes: [(String, @Sendable (Store) throws -> Void)] = [
        ("insert", { try $0.insert(["name": "Bob"], as: ref("person/bob")) }),
        ("setValue", { try $0.setValue("Ada L.", forKey: "name", of: ref("person/ada")) }),
        ("setValue(forKeyPath:)", { try $0.setValue("Paris", forKeyPath: "address.city", of: ref("person/ada")) }),
        ("removeValue", { try $0.removeValue(forKey: "name", of: ref("person/ada")) }),
        ("delete", { try $0.delete(ref("person/ada")) }),
        ("write", { try $0.write { txn in try txn.mutableArray(forKey: "tags", of: ref("person/ada")).append("x") } }),
        ("applyJournal", { store in
            let source = try TemporaryStore()
            try source.store.insert(["n": 1], as: ref("note/1"))
            try apply(try exported(source.store), to: store)
        }),
        ("truncateJournal", { _ = try $0.truncateJournal(before: 2, force: true) }),
        ("registerConsumer", { _ = try $0.registerConsumer(named: "new", startingAfter: 0) }),
        ("consumer.commit", { try $0.consumer(named: "indexer").commit(through: 2) }),
        ("consumer.unregister", { try $0.consumer(named: "indexer").unregister() }),
        ("promote", { _ = try $0.promote() }),
    ]

    /// A store holding person/ada and a consumer "indexer" at 1, closed again. - Returns: its path.
    static func makeStore(in directory: TemporaryDirectory) throws -> String {
        let path = directory.path("store")
        let store = try Store(path: path)
        try store.insert(["name": "Ada", "tags": ["poet"], "address": ["city": "London"]], as: ref("person/ada"))
        try store.setValue(36, forKey: "age", of: ref("person/ada"))
        _ = try store.registerConsumer(named: "indexer", startingAfter: 1)
        return path
    }

    static func readOnlyOptions() -> Store.Options {
        var options = Store.Options()
        options.readOnly = true
        return options
    }

    static func contents(_ path: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: (path as NSString).appendingPathComponent("data.mdb")))
    }

    @Test func everyWriteToAStoreOpenedReadOnlyFailsAndChangesNothing() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeStore(in: directory)
        let before = try Self.contents(path)
        let store = try Store(path: path, options: Self.readOnlyOptions())
        #expect(try store.value(forKey: "name", of: ref("person/ada")) == "Ada")
        #expect(try store.journalEntries().count == 2)
        for (name, write) in Self.writes {
            let error = #expect(throws: StoreError.self, "\(name)") { try write(store) }
            #expect(error?.code == .readOnly, "\(name): \(String(describing: error))")
            #expect(error.map { "\($0)" } == "\(path): the store is open read-only", "\(name)")
        }
        #expect(try store.verify().isHealthy)
        #expect(try Self.contents(path) == before)
    }

    /// The replicator opens its replica with the options it is given: a read-only replica is refused.
    @Test func replicatingIntoAReadOnlyReplicaFails() throws {
        let directory = try TemporaryDirectory()
        let source = try Store(path: directory.path("source"))
        try source.insert(["n": 1], as: ref("note/1"))
        var options = Replicator.Options()
        options.replicaOptions.createIfMissing = false
        options.replicaOptions.readOnly = true
        let replica = directory.path("replica")
        do {
            let seeded = try Store(path: replica)
            _ = seeded
        }
        let before = try Self.contents(replica)
        let error = #expect(throws: StoreError.self) {
            try Replicator(source: source, replicaPath: replica, options: options).run()
        }
        #expect(error?.code == .readOnly, "\(String(describing: error))")
        #expect(try Self.contents(replica) == before)
    }

    /// On a file system mounted read-only (root ignores permission bits, not a read-only mount):
    /// opening for writing is refused with a hint, opening read-only reads.
    @Test(.tags(.root), .skippedByTag, .enabled(if: ScratchFileSystem.isAvailable, Comment(rawValue: ScratchFileSystem.unavailableReason)))
    func aStoreOnAReadOnlyFileSystem() throws {
        let fs = try ScratchFileSystem(size: 2 << 20)
        defer { fs.unmount() }
        let path = fs.path("store")
        do {
            let store = try Store(path: path)
            try store.insert(["name": "Ada"], as: ref("person/ada"))
            _ = try store.registerConsumer(named: "indexer", startingAfter: 1)
        }
        try #require(fs.remount(readOnly: true))
        let error = #expect(throws: StoreError.self) { try Store(path: path) }
        #expect(error?.code == .readOnly, "\(String(describing: error))")
        #expect(error.map { "\($0)" }?.hasPrefix("\(path): the store is on a read-only file system") == true)
        let store = try Store(path: path, options: Self.readOnlyOptions())
        #expect(try store.value(forKey: "name", of: ref("person/ada")) == "Ada")
        #expect(try store.verify().isHealthy)
        for (name, write) in Self.writes {
            let error = #expect(throws: StoreError.self, "\(name)") { try write(store) }
            #expect(error?.code == .readOnly, "\(name): \(String(describing: error))")
        }
        // A store cannot be created there either.
        let creating = #expect(throws: StoreError.self) { try Store(path: fs.path("new")) }
        #expect(creating?.code == .readOnly || creating?.code == .permissionDenied, "\(String(describing: creating))")
    }
}
