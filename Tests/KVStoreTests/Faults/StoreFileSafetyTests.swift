import Foundation
import Testing
import TestSupport
@testable import KVStore

/// What a store makes on disk and what it refuses to trust: owner-only files by default (a wider
/// ``Store/Options/fileMode`` widens files and directory alike), no symbolic link followed for
/// `data.mdb` or `lock.mdb`, and a data file cut short refused before a page past its end is read.
@Suite struct StoreFileSafetyTests {
    static func mode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    @Test func filesAreOwnerOnlyByDefault() throws {
        let t = try TemporaryStore()
        try t.store.insert(["name": "Ada"], as: ref("person/ada"))
        #expect(try Self.mode(t.path) == 0o700)
        #expect(try Self.mode(t.path + "/data.mdb") == 0o600)
        #expect(try Self.mode(t.path + "/lock.mdb") == 0o600)
    }

    /// The process's umask still applies (as to any `open`): with the usual 022, group read stays.
    @Test func aWiderFileModeWidensFilesAndDirectory() throws {
        var options = Store.Options.testing
        options.fileMode = 0o640
        let t = try TemporaryStore(options: options)
        try t.store.insert(["name": "Ada"], as: ref("person/ada"))
        let umask = Self.currentUmask()
        #expect(try Self.mode(t.path) == 0o750 & ~umask)
        #expect(try Self.mode(t.path + "/data.mdb") == 0o640 & ~umask)
        #expect(try Self.mode(t.path + "/lock.mdb") == 0o640 & ~umask)
    }

    /// The umask, read from /proc (setting it to read it would race with other tests).
    static func currentUmask() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("Umask:") }
        return line.flatMap { Int($0.dropFirst(6).trimmingCharacters(in: .whitespaces), radix: 8) } ?? 0o022
    }

    @Test func snapshotFilesAreOwnerOnly() throws {
        let directory = try TemporaryDirectory()
        let source = try Store(path: directory.path("source"))
        try source.insert(["name": "Ada"], as: ref("person/ada"))
        let file = try SeedingLeftovers.withSnapshotFile(beside: directory.path("replica")) { descriptor, file in
            try source.writeSnapshot(to: descriptor)
            #expect(try Self.mode(file) == 0o600)
            return file
        }
        #expect(!FileManager.default.fileExists(atPath: file))
    }

    /// `data.mdb` (or `lock.mdb`) replaced by a link to a file elsewhere: LMDB would create or
    /// open the file the link points to. The store refuses, and nothing is made there.
    @Test(arguments: ["data.mdb", "lock.mdb"])
    func aSymbolicLinkForAStoreFileIsNotFollowed(_ name: String) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store"), elsewhere = directory.path("elsewhere")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: path + "/" + name, withDestinationPath: elsewhere + "/" + name)
        let error = #expect(throws: StoreError.self) { try Store(path: path) }
        #expect(error?.code == .notAStore)
        #expect(error.map { "\($0)" } == "\(path): \(name) is a symbolic link; a store's files must be regular files in its directory")
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)

        // Also when the link points to a real store's file.
        try FileManager.default.removeItem(atPath: path + "/" + name)
        let real = try Store(path: directory.path("real"))
        try real.insert(["name": "Ada"], as: ref("person/ada"))
        try FileManager.default.createSymbolicLink(atPath: path + "/" + name, withDestinationPath: directory.path("real/") + name)
        #expect(throws: StoreError.self) { try Store(path: path) }
    }

    /// A store directory that is itself a symbolic link is followed (a store moved to another
    /// disk and linked back is common); a link to nothing is an error, and nothing is created.
    @Test func aLinkedStoreDirectoryIsFollowedADanglingOneIsAnError() throws {
        let directory = try TemporaryDirectory()
        do {
            let real = try Store(path: directory.path("real"))
            try real.insert(["name": "Ada"], as: ref("person/ada"))
        }
        try FileManager.default.createSymbolicLink(atPath: directory.path("link"), withDestinationPath: directory.path("real"))
        #expect(try Store(path: directory.path("link")).value(forKey: "name", of: ref("person/ada")) == "Ada")

        try FileManager.default.createSymbolicLink(atPath: directory.path("dangling"), withDestinationPath: directory.path("gone"))
        #expect(throws: StoreError.self) { try Store(path: directory.path("dangling")) }
        #expect(!FileManager.default.fileExists(atPath: directory.path("gone")))
    }

    /// A store at `path` of 200 records with 2000-byte blobs: pages enough to cut some off.
    static func storeOfBlobs(at path: String) throws -> Store {
        let store = try Store(path: path)
        try store.write { txn in
            for i in 0..<200 { try txn.insert(["blob": .bytes(Data(repeating: 7, count: 2000))], as: ref("blob/\(i)")) }
        }
        return store
    }

    /// A data file cut short (its last pages gone): refused as corrupt with one error, where LMDB
    /// would map it and die with SIGBUS reading a page past its end.
    @Test(arguments: [false, true])
    func aTruncatedDataFileIsRefused(readOnly: Bool) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store")
        do {
            _ = try Self.storeOfBlobs(at: path)
        }
        let file = path + "/data.mdb"
        let size = try #require(try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
        try handle.truncate(atOffset: UInt64(size / 2))
        try handle.close()
        var options = Store.Options()
        options.readOnly = readOnly
        let error = #expect(throws: StoreError.self) { try Store(path: path, options: options) }
        #expect(error?.code == .corrupt)
        #expect(error.map { "\($0)" }?.hasPrefix("\(path): data.mdb is truncated: \(size / 2) bytes, but its pages reach ") == true)
        #expect(try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int == size / 2)
    }

    /// A data file whose missing end holds only free pages is whole: LMDB 0.9.27 and later leave
    /// pages a commit allocated and freed again unwritten, yet count them in the last page. Such a
    /// file opens (read-write and read-only), reads every record and verifies clean.
    @Test(arguments: [false, true])
    func aDataFileLackingOnlyFreePagesAtItsEndOpens(readOnly: Bool) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store")
        do {
            let store = try Self.storeOfBlobs(at: path)
            try store.write { txn in for i in 0..<200 { try txn.delete(ref("blob/\(i)")) } }
            for i in 0..<3 { try store.insert(["name": .string("n\(i)")], as: ref("person/\(i)")) }
        }
        // Drop as many whole pages from the end as are free (the tail the commits above freed).
        let file = path + "/data.mdb"
        let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        let pageSize = Int(getpagesize())
        var dropped = 0
        while dropped + 3 < bytes.count / pageSize {
            try bytes.prefix(bytes.count - (dropped + 1) * pageSize).write(to: URL(fileURLWithPath: file))
            if !StoreFiles.lacksOnlyFreePages(file, pageSize: pageSize) { break }
            dropped += 1
        }
        try bytes.prefix(bytes.count - dropped * pageSize).write(to: URL(fileURLWithPath: file))
        try #require(dropped > 0)
        var options = Store.Options()
        options.readOnly = readOnly
        let store = try Store(path: path, options: options)
        for i in 0..<3 { #expect(try store.record(ref("person/\(i)"))?["name"] == .string("n\(i)")) }
        #expect(try store.records(ofKind: "blob").isEmpty)
        #expect(try store.verify().findings.isEmpty)
    }

    /// The lock file LMDB makes is the size whose blocks ``StoreFiles/lockFileSize(maxReaders:)``
    /// allocates ahead of it (a smaller one would leave the end of LMDB's map of it unbacked).
    @Test func theAllocatedLockFileHasLMDBsSize() throws {
        let t = try TemporaryStore()
        let size = try FileManager.default.attributesOfItem(atPath: t.path + "/lock.mdb")[.size] as? Int
        #expect(size == StoreFiles.lockFileSize(maxReaders: 126))
        #expect(t.store.environment.statistics().maxReaders == 126)
    }
}
