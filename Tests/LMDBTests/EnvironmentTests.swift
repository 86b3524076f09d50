import CLMDB
import Foundation
import Testing
import TestSupport
@testable import LMDB

private func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

@Suite struct EnvironmentTests {
    @Test func putGetDeleteRoundTrip() throws {
        let dir = try TemporaryDirectory()
        let env = try Environment(path: dir.path)
        let db = try env.openDatabase("things")
        try env.write { txn in
            try txn.put(bytes("a"), bytes("1"), in: db)
            try txn.put(bytes("b"), bytes("2"), in: db)
        }
        let a = try env.read { txn in try txn.value(forKey: bytes("a"), in: db) }
        #expect(a == bytes("1"))
        let removed = try env.write { txn in try txn.delete(bytes("a"), in: db) }
        #expect(removed)
        let again = try env.write { txn in try txn.delete(bytes("a"), in: db) }
        #expect(!again)
        #expect(try env.read { try $0.value(forKey: bytes("a"), in: db) } == nil)
    }

    @Test func throwingWriteAbortsEverything() throws {
        struct Boom: Error {}
        let dir = try TemporaryDirectory()
        let env = try Environment(path: dir.path)
        let db = try env.openDatabase("things")
        #expect(throws: Boom.self) {
            try env.write { txn in
                try txn.put(bytes("k"), bytes("v"), in: db)
                throw Boom()
            }
        }
        #expect(try env.read { try $0.value(forKey: bytes("k"), in: db) } == nil)
    }

    @Test func noOverwriteAndAppendReportLMDBCodes() throws {
        let dir = try TemporaryDirectory()
        let env = try Environment(path: dir.path)
        let db = try env.openDatabase("things")
        try env.write { try $0.put(bytes("m"), bytes("1"), in: db) }
        #expect(throws: LMDBError.keyExists) {
            try env.write { try $0.put(bytes("m"), bytes("2"), in: db, overwrite: false) }
        }
        #expect(throws: LMDBError.keyExists) {
            try env.write { try $0.put(bytes("a"), bytes("2"), in: db, append: true) }
        }
    }

    @Test func cursorScansInKeyOrderFromAPrefix() throws {
        let dir = try TemporaryDirectory()
        let env = try Environment(path: dir.path)
        let db = try env.openDatabase("things")
        try env.write { txn in
            for key in ["b2", "a1", "b1", "c1", "b3"] { try txn.put(bytes(key), bytes(key), in: db) }
        }
        let keys: [String] = try env.read { txn in
            try txn.withCursor(on: db) { cursor in
                var found: [String] = []
                var entry = try cursor.seek(atOrAfter: bytes("b"))
                while let (key, _) = entry, key.first == UInt8(ascii: "b") {
                    found.append(String(decoding: key, as: UTF8.self))
                    entry = try cursor.next()
                }
                return found
            }
        }
        #expect(keys == ["b1", "b2", "b3"])
        let last = try env.read { txn in try txn.withCursor(on: db) { try $0.last().map { Array($0.key) } } }
        #expect(last == bytes("c1"))
    }

    @Test func mapGrowsTransparentlyFromATinyMap() throws {
        let dir = try TemporaryDirectory()
        let env = try Environment(path: dir.path, options: .init(mapSize: 64 << 10))
        let db = try env.openDatabase("blobs")
        let value = [UInt8](repeating: 0xAB, count: 1000)
        var runs = 0
        // 50 MB in batches: puts and commits hit MDB_MAP_FULL and are re-run after growth.
        for batch in 0..<50 {
            try env.write { txn in
                runs += 1
                for i in 0..<1000 { try txn.put(bytes(String(format: "%02d-%04d", batch, i)), value, in: db) }
            }
        }
        #expect(runs > 50, "at least one write must have been re-run after the map grew")
        #expect(env.currentMapSize >= 50_000_000)
        let count = try env.read { try $0.statistics(of: db).entries }
        #expect(count == 50_000)
    }

    @Test func mapFullAtMaxSizeIsReported() throws {
        let dir = try TemporaryDirectory()
        let env = try Environment(path: dir.path, options: .init(mapSize: 64 << 10, maxMapSize: 256 << 10))
        let db = try env.openDatabase("blobs")
        let value = [UInt8](repeating: 1, count: 4000)
        #expect(throws: LMDBError.mapFull) {
            try env.write { txn in
                for i in 0..<1000 { try txn.put(bytes("k\(i)"), value, in: db) }
            }
        }
    }

    @Test func mapResizedByAnotherHandleIsAdopted() throws {
        let dir = try TemporaryDirectory()
        let small = try Environment(path: dir.path, options: .init(mapSize: 64 << 10))
        let db = try small.openDatabase("blobs")
        let other = try Environment(path: dir.path, options: .init(mapSize: 64 << 10))
        let otherDB = try other.openDatabase("blobs")
        let value = [UInt8](repeating: 7, count: 1000)
        try other.write { txn in for i in 0..<2000 { try txn.put(bytes("k\(i)"), value, in: otherDB) } }
        // `small` still has the old map size: it must adopt the new one and read everything.
        let count = try small.read { try $0.statistics(of: db).entries }
        #expect(count == 2000)
        try small.write { try $0.put(bytes("z"), value, in: db) }
    }

    @Test func openingAdoptsTheLargerMapAnotherProcessGrewNotJustThePagesInUse() throws {
        let dir = try TemporaryDirectory()
        do {   // another process (its own handle) grows the map to 8 MiB, writes a little, ends
            let grower = try Environment(path: dir.path, options: .init(mapSize: 8 << 20))
            let db = try grower.openDatabase("blobs")
            try grower.write { txn in for i in 0..<100 { try txn.put(bytes("k\(i)"), [UInt8](repeating: 1, count: 1000), in: db) } }
        }
        // Opening with a smaller map gets the one the file records (as `mdb_stat -e` shows it),
        // not a map clamped to the pages in use, which the first write would have to grow.
        let later = try Environment(path: dir.path, options: .init(mapSize: 64 << 10))
        #expect(later.currentMapSize == 8 << 20)
        #expect(later.info().mapSize == 8 << 20)
        let readOnly = try Environment(path: dir.path, options: .init(mapSize: 64 << 10, readOnly: true))
        #expect(readOnly.currentMapSize == 8 << 20)
        // A larger map asked for is kept.
        let larger = try Environment(path: dir.path, options: .init(mapSize: 16 << 20))
        #expect(larger.currentMapSize == 16 << 20)
    }

    @Test func readOnlyEnvironmentRefusesWrites() throws {
        let dir = try TemporaryDirectory()
        do {
            let env = try Environment(path: dir.path)
            _ = try env.openDatabase("things")
        }
        let ro = try Environment(path: dir.path, options: .init(readOnly: true))
        _ = try ro.openDatabase("things", create: true)
        #expect(throws: LMDBError.self) { try ro.write { _ in } }
        #expect(throws: LMDBError.notFound) { try ro.openDatabase("missing") }
    }

    @Test func openingAMissingDirectoryFailsWithENOENT() throws {
        let dir = try TemporaryDirectory()
        #expect(throws: LMDBError(code: ENOENT, operation: "")) {
            try Environment(path: dir.path + "/nope")
        }
    }

    @Test func openingANonLMDBFileFailsWithInvalid() throws {
        let dir = try TemporaryDirectory()
        try Data(repeating: 0x42, count: 8192).write(to: URL(fileURLWithPath: dir.path + "/data.mdb"))
        #expect(throws: LMDBError.invalid) { try Environment(path: dir.path) }
    }

    @Test func errorsCarryLMDBsMessage() {
        let error = LMDBError(code: MDB_MAP_FULL, operation: "mdb_put")
        #expect(error.description.contains("MDB_MAP_FULL"))
        #expect(error.description.hasPrefix("mdb_put"))
    }

    @Test func filesAreCreatedOwnerOnly() throws {
        let dir = try TemporaryDirectory()
        _ = try Environment(path: dir.path)
        let attributes = try FileManager.default.attributesOfItem(atPath: dir.path + "/data.mdb")
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }

    @Test func readersSeeAConsistentSnapshotWhileOneWrites() async throws {
        let dir = try TemporaryDirectory()
        let env = try Environment(path: dir.path, options: .init(mapSize: 64 << 10))
        let db = try env.openDatabase("pairs")
        try env.write { txn in try txn.put(bytes("x"), bytes("0"), in: db); try txn.put(bytes("y"), bytes("0"), in: db) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                let filler = [UInt8](repeating: 1, count: 2000)
                for i in 1...300 {
                    try env.write { txn in
                        try txn.put(bytes("x"), bytes(String(i)), in: db)
                        try txn.put(bytes("pad\(i)"), filler, in: db)  // forces map growth under readers
                        try txn.put(bytes("y"), bytes(String(i)), in: db)
                    }
                }
            }
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<500 {
                        let (x, y) = try env.read { txn in
                            (try txn.value(forKey: bytes("x"), in: db),
                             try txn.value(forKey: bytes("y"), in: db))
                        }
                        #expect(x == y)
                    }
                }
            }
            try await group.waitForAll()
        }
    }
}

@Suite struct NestedWriteTests {
    @Test func aWriteInsideAWriteOnTheSameThreadIsRefusedNotDeadlocked() throws {
        let dir = try TemporaryDirectory()
        let env = try Environment(path: dir.path)
        let db = try env.openDatabase("things")
        #expect(throws: LMDBError(code: EDEADLK, operation: "")) {
            try env.write { _ in try env.write { try $0.put(Array("k".utf8), Array("v".utf8), in: db) } }
        }
        // A read inside a write is fine (MDB_NOTLS).
        let seen = try env.write { txn in
            try txn.put(Array("k".utf8), Array("v".utf8), in: db)
            return try env.read { try $0.value(forKey: Array("k".utf8), in: db) != nil }
        }
        #expect(!seen, "the read sees the last committed snapshot, not the open write")
    }
}

@Suite struct EnvironmentSharingTests {
    @Test func openingADirectoryTwiceSharesOneEnvironment() throws {
        let dir = try TemporaryDirectory()
        let a = try Environment.open(path: dir.path)
        let b = try Environment.open(path: dir.path + "/.")
        #expect(a === b)
    }

    @Test func aReleasedEnvironmentIsClosedAndOpensAgain() throws {
        let dir = try TemporaryDirectory()
        weak var first: Environment?
        do {
            let env = try Environment.open(path: dir.path)
            first = env
            let db = try env.openDatabase("things")
            try env.write { try $0.put(Array("k".utf8), Array("v".utf8), in: db) }
        }
        #expect(first == nil)
        let again = try Environment.open(path: dir.path)
        let db = try again.openDatabase("things", create: false)
        #expect(try again.read { try $0.value(forKey: Array("k".utf8), in: db) } == Array("v".utf8))
    }

    /// A directory whose files are not the ones the open environment has (the files were removed,
    /// or the directory was removed and its inode reused by a new one, as ext4 does at once) gets
    /// an environment of its own: sharing the old one would write to deleted files.
    @Test func aDirectoryWhoseFilesWereReplacedGetsANewEnvironment() throws {
        let dir = try TemporaryDirectory()
        let old = try Environment.open(path: dir.path)
        let db = try old.openDatabase("things")
        try old.write { try $0.put(Array("k".utf8), Array("old".utf8), in: db) }
        for file in ["data.mdb", "lock.mdb"] { try FileManager.default.removeItem(atPath: dir.path + "/" + file) }
        let new = try Environment.open(path: dir.path)
        #expect(new !== old)
        #expect(FileManager.default.fileExists(atPath: dir.path + "/data.mdb"))
        #expect(throws: LMDBError.self) { try new.openDatabase("things", create: false) }
        #expect(try Environment.open(path: dir.path) === new)
        // The old environment goes on with its own (deleted) files, and closing it leaves the new one registered.
        #expect(try old.read { try $0.value(forKey: Array("k".utf8), in: db) } == Array("old".utf8))
    }

    @Test func aReadOnlyEnvironmentIsNotUpgradedToWriting() throws {
        let dir = try TemporaryDirectory()
        _ = try Environment.open(path: dir.path)  // create the files, then release
        let ro = try Environment.open(path: dir.path, options: .init(readOnly: true))
        #expect(throws: LMDBError(code: EBUSY, operation: "")) { try Environment.open(path: dir.path) }
        #expect(try Environment.open(path: dir.path, options: .init(readOnly: true)) === ro)
    }
}

@Suite struct ResizeGateTests {
    /// A thread holding a read starts a nested read while a writer waits to resize: the nested read
    /// must go ahead (the resize is waiting for this very thread), not wait for the resize.
    @Test func aNestedReadDoesNotWaitForAPendingResize() throws {
        let gate = ResizeGate()
        gate.enter()
        let resized = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = gate.exclusively {}
            resized.signal()
        }
        try #require(waitUntil { gate.isResizing })  // the resizer has raised its flag and waits
        gate.enter()                                 // nested: must not block
        gate.leave()
        #expect(resized.wait(timeout: .now() + 0.05) == .timedOut, "the resize waits for the outer read")
        #expect(gate.isResizing)
        gate.leave()
        #expect(resized.wait(timeout: .now() + 60) == .success)
    }
}

@Suite struct ForeignResizeTests {
    @Test func aWriteInsideAReadOnTheSameThreadIsRefused() throws {
        let dir = try TemporaryDirectory()
        let env = try Environment.open(path: dir.path)
        let db = try env.openDatabase("things")
        #expect(throws: LMDBError(code: EDEADLK, operation: "")) {
            try env.read { _ in try env.write { try $0.put(Array("k".utf8), Array("v".utf8), in: db) } }
        }
    }

    /// Another process (LMDB's own `mdb_load`) grows the map while this process reads and writes
    /// on several threads: every thread adopts the new size, nothing crashes, nothing fails.
    @Test(.tags(.subprocess), .skippedByTag) func aMapGrownByAnotherProcessIsAdoptedUnderLoad() throws {
        let loader = "/usr/bin/mdb_load"
        guard FileManager.default.isExecutableFile(atPath: loader) else { return }  // lmdb-utils absent
        let dir = try TemporaryDirectory()
        let env = try Environment.open(path: dir.path, options: .init(mapSize: 256 << 10, durability: .noSync))
        let db = try env.openDatabase("things")
        try env.write { try $0.put(Array("k".utf8), Array("0".utf8), in: db) }
        let stop = Flag()
        let failures = Failures()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            var i = 0
            while !stop.isSet {
                i += 1
                do {
                    try env.write { txn in
                        try txn.put(Array("k".utf8), Array(String(i).utf8), in: db)
                        usleep(1000)  // a write that stays open while the other process grows the map
                    }
                }
                catch { failures.add("writer: \(error)") }
            }
        }
        for _ in 0..<3 {
            DispatchQueue.global().async(group: group) {
                while !stop.isSet {
                    do { _ = try env.read { try $0.value(forKey: Array("k".utf8), in: db) } }
                    catch { failures.add("reader: \(error)") }
                }
            }
        }
        let dump = dir.path + "/other.dump"
        var text = "VERSION=3\nformat=bytevalue\ndatabase=other\ntype=btree\nmapsize=\(64 << 20)\nHEADER=END\n"
        for i in 0..<2000 { text += " " + Array("key\(i)".utf8).map { String(format: "%02x", $0) }.joined() + "\n " + String(repeating: "ab", count: 200) + "\n" }
        text += "DATA=END\n"
        try text.write(toFile: dump, atomically: true, encoding: .utf8)
        for _ in 0..<3 {
            #expect(try runExternalTool(loader, ["-f", dump, "-s", "other", dir.path])?.status == 0)
            Thread.sleep(forTimeInterval: 0.1)
        }
        stop.set()
        group.wait()
        #expect(failures.all.isEmpty, "\(failures.all.prefix(3))")
        try env.write { try $0.put(Array("done".utf8), Array("1".utf8), in: db) }
        #expect(env.currentMapSize >= 64 << 20)
    }
}

@Suite struct ScanTests {
    @Test func scansARangeAndAPrefixInKeyOrder() throws {
        let dir = try TemporaryDirectory()
        let env = try Environment.open(path: dir.path)
        let db = try env.openDatabase("things")
        try env.write { txn in
            for key in ["a", "b1", "b2", "b3", "c", "d"] { try txn.put(Array(key.utf8), Array(key.utf8), in: db) }
        }
        func keys(_ scan: (Transaction, inout [String]) throws -> Void) throws -> [String] {
            try env.read { txn in
                var found: [String] = []
                try scan(txn, &found)
                return found
            }
        }
        #expect(try keys { txn, found in
            try txn.scan(db, from: Array("b2".utf8), to: Array("d".utf8)) { key, _ in
                found.append(String(decoding: key, as: UTF8.self)); return true
            }
        } == ["b2", "b3", "c"])
        #expect(try keys { txn, found in
            try txn.scan(db, prefix: Array("b".utf8)) { key, _ in
                found.append(String(decoding: key, as: UTF8.self)); return found.count < 2
            }
        } == ["b1", "b2"])
        #expect(try keys { txn, found in
            try txn.scan(db) { key, _ in found.append(String(decoding: key, as: UTF8.self)); return true }
        } == ["a", "b1", "b2", "b3", "c", "d"])
    }
}
