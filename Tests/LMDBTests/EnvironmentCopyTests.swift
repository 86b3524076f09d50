import CLMDB
import Foundation
import Testing
import TestSupport
@testable import LMDB

@Suite struct EnvironmentCopyTests {
    private func filled(_ dir: TemporaryDirectory, count: Int = 500) throws -> (Environment, Database) {
        let env = try Environment(path: dir.path)
        let db = try env.openDatabase("things")
        try env.write { txn in
            for i in 0..<count { try txn.put(Array("key\(i)".utf8), Array(repeating: UInt8(i % 251), count: 100), in: db) }
        }
        // Free pages the compacting copy leaves out.
        try env.write { txn in
            for i in 0..<count where i % 2 == 0 { try txn.delete(Array("key\(i)".utf8), in: db) }
        }
        return (env, db)
    }

    private func keys(_ env: Environment, _ db: Database) throws -> [String] {
        try env.read { txn in
            var keys: [String] = []
            try txn.scan(db) { key, _ in keys.append(String(decoding: key, as: UTF8.self)); return true }
            return keys
        }
    }

    @Test func copyToPathHoldsTheSameEntriesAndCompactionShrinksIt() throws {
        let dir = try TemporaryDirectory()
        let source = dir.path + "/source", compact = dir.path + "/compact", plain = dir.path + "/plain"
        for path in [source, compact, plain] { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        let env = try Environment(path: source)
        let db = try env.openDatabase("things")
        try env.write { txn in
            for i in 0..<2000 { try txn.put(Array("key\(i)".utf8), Array(repeating: 7, count: 200), in: db) }
        }
        try env.write { txn in for i in 0..<2000 where i % 4 != 0 { try txn.delete(Array("key\(i)".utf8), in: db) } }
        try env.copy(toPath: compact)
        try env.copy(toPath: plain, compacting: false)
        let size = { (path: String) in (try FileManager.default.attributesOfItem(atPath: path + "/data.mdb")[.size] as? Int) ?? 0 }
        #expect(try size(compact) < size(plain))
        for path in [compact, plain] {
            let copy = try Environment(path: path)
            #expect(try keys(copy, try copy.openDatabase("things", create: false)) == keys(env, db))
        }
    }

    @Test func copyToPathRefusesAnExistingDataFileAndAMissingDirectory() throws {
        let dir = try TemporaryDirectory()
        let (env, _) = try filled(dir)
        #expect(throws: LMDBError.self) { try env.copy(toPath: dir.path) }  // its own data.mdb is there
        #expect(throws: LMDBError.self) { try env.copy(toPath: dir.path + "/missing") }
    }

    @Test func copyToFileDescriptorWritesAnEnvironmentThatOpens() throws {
        let dir = try TemporaryDirectory()
        let source = dir.path + "/source", target = dir.path + "/target"
        for path in [source, target] { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        let env = try Environment(path: source)
        let db = try env.openDatabase("things")
        try env.write { txn in for i in 0..<300 { try txn.put(Array("k\(i)".utf8), Array("v\(i)".utf8), in: db) } }
        let fd = open(target + "/data.mdb", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        #expect(fd >= 0)
        try env.copy(toFileDescriptor: fd)
        close(fd)
        let copy = try Environment(path: target)
        #expect(try keys(copy, try copy.openDatabase("things", create: false)) == keys(env, db))
    }

    @Test func copyToAClosedFileDescriptorFails() throws {
        let dir = try TemporaryDirectory()
        let (env, _) = try filled(dir, count: 10)
        #expect(throws: LMDBError.self) { try env.copy(toFileDescriptor: -1) }
    }

    @Test func emptyDeletesEveryEntryAndKeepsTheDatabase() throws {
        let dir = try TemporaryDirectory()
        let (env, db) = try filled(dir, count: 5000)
        #expect(try !keys(env, db).isEmpty)
        try env.write { txn in try txn.empty(db) }
        #expect(try keys(env, db).isEmpty)
        try env.write { txn in try txn.put(Array("again".utf8), Array("1".utf8), in: db) }
        #expect(try keys(env, db) == ["again"])
    }
}
