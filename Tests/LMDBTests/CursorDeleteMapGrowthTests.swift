import CLMDB
import Testing
import TestSupport
@testable import LMDB

private func key(_ i: Int) -> [UInt8] { Array("k\(1000 + i)".utf8) }

/// A delete copies the pages on its path before changing them, so on a full map it fails with
/// `MDB_MAP_FULL` like a put: through a cursor too, the write grows the map and runs again.
@Suite struct CursorDeleteMapGrowthTests {
    @Test func aCursorDeleteOnAFullMapGrowsTheMapAndRunsAgain() throws {
        let dir = try TemporaryDirectory()
        // Two handles, as two processes would have them: `filler` may not grow its 64 KiB map and
        // fills it to the last page; `deleter` may grow. (Both open before the reader below:
        // opening a handle resets the reader table when no other process has the environment open.)
        let filler = try Environment(path: dir.path, options: .init(mapSize: 64 << 10, maxMapSize: 64 << 10))
        let deleter = try Environment(path: dir.path, options: .init(mapSize: 64 << 10, maxMapSize: 1 << 20))
        let db = try filler.openDatabase("things")
        let value = [UInt8](repeating: 0xAB, count: 500)
        try filler.write { txn in for i in 0..<4 { try txn.put(key(i), value, in: db) } }

        // A reader pins every page freed from now on: no later write can reuse one.
        var reader: OpaquePointer?
        try #require(mdb_txn_begin(filler.handle, nil, UInt32(MDB_RDONLY), &reader) == 0)
        defer { withExtendedLifetime(filler) { mdb_txn_abort(reader) } }  // before the handle closes
        var count = 4
        while count < 1000, (try? filler.write { txn in try txn.put(key(count), value, in: db) }) != nil { count += 1 }
        #expect(count > 4 && count < 1000)

        // The map is full even for a delete: `mdb_cursor_del` itself fails for want of a page.
        struct Abort: Error {}
        var rawDelete: Int32 = 0
        _ = try? filler.write { txn in
            try txn.withCursor(on: db) { cursor in
                _ = try cursor.first()
                rawDelete = mdb_cursor_del(cursor.cursor, 0)
            }
            throw Abort()
        }
        try #require(rawDelete == MDB_MAP_FULL, "the setup must fill the map: mdb_cursor_del returned \(rawDelete)")

        // Through `Cursor.deleteCurrent` the write grows the map and runs again, and commits.
        let deleterDB = try deleter.openDatabase("things")
        var runs = 0
        try deleter.write { txn in
            runs += 1
            try txn.withCursor(on: deleterDB) { cursor in
                _ = try cursor.first()
                try cursor.deleteCurrent()
            }
        }
        #expect(runs == 2)
        #expect(deleter.currentMapSize > 64 << 10)
        let (entries, first) = try deleter.read { txn in
            (try txn.statistics(of: deleterDB).entries,
             try txn.withCursor(on: deleterDB) { try $0.first().map { Array($0.key) } })
        }
        #expect(entries == count - 1)
        #expect(first == key(1))
    }
}
