import Foundation
import Testing
import TestSupport
@testable import KVStore

/// A reader slot left by a process killed in the middle of a read transaction (a `kvstore dump`
/// blocked on a full pipe, then SIGKILLed): LMDB keeps the dead process's slot, which pins the
/// pages of its snapshot. Opening a store clears such slots (`mdb_reader_check`), and so does a
/// store already open when its map fills, before growing it: the dead reader holds back neither
/// `stat`'s count nor the reuse of freed pages.
@Suite(.tags(.subprocess, .crash), .skippedByTag) struct StaleReaderTests {
    /// A store of `count` records of `size`-byte blobs (more than a pipe holds, so that a dump
    /// blocks in its read transaction).
    static func makeStore(_ dir: TestDirectory, options: Store.Options = Store.Options(), count: Int, size: Int) throws -> Store {
        let store = try Store(path: dir.path("store"), options: options)
        try store.write { txn in
            for i in 0..<count { try txn.insert(["blob": .bytes(Data(repeating: UInt8(i), count: size))], as: try RecordRef("blob/\(i)")) }
        }
        return store
    }

    /// A `kvstore dump` whose output nobody reads: it blocks holding its read transaction. Returns
    /// once the reader shows in the lock table.
    static func blockedDump(_ dir: TestDirectory) throws -> BackgroundCommand {
        let dump = try BackgroundCommand(["dump", dir.path("store")], in: dir, readingOutput: false)
        #expect(waitUntil { (try? activeReaders(dir)) == 1 }, "the dump's reader never showed")
        return dump
    }

    /// The readers `kvstore stat` counts (it opens the store, which clears stale slots first).
    static func activeReaders(_ dir: TestDirectory) throws -> Int {
        let result = try dir.succeed("stat", dir.path("store"), "--format", "json")
        let report = try TypedJSON.dictionary(from: result.stdout)
        guard case .dictionary(let readers)? = report["readers"], case .array(let active)? = readers["active"] else { return -1 }
        return active.count
    }

    @Test func aKilledReadersSlotIsClearedWhenTheStoreIsOpened() throws {
        let dir = try TestDirectory()
        // Held open: when no process has the environment open, LMDB resets the whole lock table
        // on the next open, stale slots and all. The test process holds no read transaction.
        let store = try Self.makeStore(dir, count: 40, size: 4096)
        let dump = try Self.blockedDump(dir)
        #expect(dump.stop(signal: SIGKILL) != 0)
        // The slot is still in the lock table (mdb_stat -r lists it without checking)…
        if let listing = try runExternalTool("/usr/bin/mdb_stat", ["-r", dir.path("store")]) {
            #expect(!listing.output.contains("(no active readers)"), "\(listing.output)")
        }
        // …until a store is opened: stat opens one, clears it, and counts no reader.
        #expect(try Self.activeReaders(dir) == 0)
        if let listing = try runExternalTool("/usr/bin/mdb_stat", ["-r", dir.path("store")]) {
            #expect(listing.output.contains("(no active readers)"), "\(listing.output)")
        }
        try store.setValue(1, forKey: "n", of: RecordRef("blob/0"))
        #expect(try dir.succeed("verify", dir.path("store")).status == 0)
    }

    /// A store open the whole time (a server, say) keeps rewriting the same records and truncating
    /// its journal after a reader was killed: when the map fills because the dead reader pins
    /// old pages, the store clears the slot and reuses them instead of growing the map.
    @Test func aKilledReaderDoesNotMakeAnOpenStoreGrow() throws {
        let dir = try TestDirectory()
        var options = Store.Options()
        options.mapSize = 4 << 20
        options.durability = .noSync  // the point is page reuse, not fsync
        let store = try Self.makeStore(dir, options: options, count: 10, size: 8192)
        let mapSize = store.environment.currentMapSize
        let dump = try Self.blockedDump(dir)
        #expect(dump.stop(signal: SIGKILL) != 0)
        for round in 1...60 {
            try store.write { txn in
                for i in 0..<10 {
                    try txn.setValue(.bytes(Data(repeating: UInt8(truncatingIfNeeded: round), count: 8192)), forKey: "blob", of: try RecordRef("blob/\(i)"))
                }
            }
            let last = try store.read { try $0.lastSequence() }
            _ = try store.truncateJournal(before: last + 1, force: true)
        }
        #expect(store.environment.currentMapSize == mapSize)
        #expect(try store.value(forKey: "blob", of: RecordRef("blob/9")) == .bytes(Data(repeating: 60, count: 8192)))
        #expect(try store.verify().isHealthy)
    }
}
