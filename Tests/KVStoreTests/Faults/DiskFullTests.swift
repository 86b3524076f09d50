import Foundation
import Testing
import TestSupport
@testable import KVStore

/// A full disk (a small tmpfs, filled to the last byte): the write that needs a new page fails
/// with one ``StoreError`` naming the full device and the store, commits nothing, leaves the
/// store consistent, and writing works again once space is freed. Skipped, saying why, where the
/// process cannot mount a tmpfs (not root, or a kernel that forbids it).
@Suite(.tags(.root), .skippedByTag, .enabled(if: ScratchFileSystem.isAvailable, Comment(rawValue: ScratchFileSystem.unavailableReason)))
struct DiskFullTests {
    /// A 256 KiB value: more pages than the store has free, so writing it extends the data file.
    static let bigValue = Value.bytes(Data(repeating: 0x5A, count: 256 << 10))

    /// Opens a store on `fs`, with two commits in it.
    static func storeWithTwoCommits(on fs: ScratchFileSystem, options: Store.Options = Store.Options()) throws -> Store {
        let store = try Store(path: fs.path("store"), options: options)
        try store.insert(["name": "Ada"], as: ref("person/ada"))
        try store.setValue(36, forKey: "age", of: ref("person/ada"))
        return store
    }

    /// Checks the store holds exactly the two commits of ``storeWithTwoCommits(on:options:)``.
    static func expectTwoCommits(_ store: Store, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try store.record(ref("person/ada")) == ["name": "Ada", "age": 36], sourceLocation: sourceLocation)
        #expect(try store.count(ofKind: "blob") == 0, sourceLocation: sourceLocation)
        #expect(try store.journalEntries().map(\.commitID) == [1, 2], sourceLocation: sourceLocation)
        let report = try store.verify()
        #expect(report.isHealthy, "\(report.findings)", sourceLocation: sourceLocation)
    }

    @Test func aWriteOnAFullDiskFailsCleanlyAndWorksOnceSpaceIsFreed() throws {
        let fs = try ScratchFileSystem(size: 2 << 20)
        defer { fs.unmount() }
        let path = fs.path("store")
        do {
            let store = try Self.storeWithTwoCommits(on: fs)
            let filler = fs.fill()
            let error = try #require(throws: StoreError.self) {
                try store.insert(["blob": Self.bigValue], as: ref("blob/1"))
            }
            #expect(error.code == .noSpace)
            #expect(error.path == path)
            #expect("\(error)".hasPrefix("\(path): no space left on the device"), "\(error)")
            #expect(!"\(error)".contains("\n"))
            try Self.expectTwoCommits(store)

            // Space freed: the same store (still open) writes again.
            try fs.release(filler)
            try store.insert(["blob": Self.bigValue], as: ref("blob/1"))
            #expect(try store.value(forKey: "blob", of: ref("blob/1")) == Self.bigValue)
        }
        // Reopened (the environment closed with the store): consistent, three commits.
        let reopened = try Store(path: path)
        #expect(try reopened.journalEntries().map(\.commitID) == [1, 2, 3])
        #expect(try reopened.verify().isHealthy)
    }

    /// The write needs the map to grow (a 1 MiB map, 2 MiB of records and journal to write) and the disk is full: the
    /// map grows (that takes no disk space) but the commit cannot extend the file: one error, nothing written.
    @Test func mapGrowthOnAFullDiskFailsCleanly() throws {
        let fs = try ScratchFileSystem(size: 3 << 20)
        defer { fs.unmount() }
        var options = Store.Options()
        options.mapSize = 1 << 20
        let path = fs.path("store")
        do {
            let store = try Self.storeWithTwoCommits(on: fs, options: options)
            let filler = fs.fill()
            let error = try #require(throws: StoreError.self) {
                try store.write { txn in
                    for i in 0..<4 { try txn.insert(["blob": Self.bigValue], as: ref("blob/\(i)")) }
                }
            }
            #expect(error.code == .noSpace, "\(error)")
            try Self.expectTwoCommits(store)
            try fs.release(filler)
        }
        let reopened = try Store(path: path, options: options)
        try Self.expectTwoCommits(reopened)
        try reopened.write { txn in
            for i in 0..<4 { try txn.insert(["blob": Self.bigValue], as: ref("blob/\(i)")) }
        }
        #expect(try reopened.count(ofKind: "blob") == 4)
        #expect(try reopened.verify().isHealthy)
    }

    /// Opening on a full disk never removes a lock file: an empty one may be another process's,
    /// opened by its LMDB and not yet sized, and a removed lock file would let the next opener make
    /// a second reader table and a second writer lock beside it. (Stood in for here by a
    /// descriptor held on the emptied lock file.)
    @Test func aFailedOpenOnAFullDiskKeepsAnEmptyLockFile() throws {
        let fs = try ScratchFileSystem(size: 1 << 20)
        defer { fs.unmount() }
        let path = fs.path("store")
        do { _ = try Self.storeWithTwoCommits(on: fs) }
        let lockFile = path + "/lock.mdb"
        let held = open(lockFile, O_RDWR | O_TRUNC | O_CLOEXEC)
        try #require(held >= 0)
        defer { close(held) }
        let filler = fs.fill()
        #expect(StoreFiles.deviceIsFull(fs.path))
        let error = try #require(throws: StoreError.self) { try Store(path: path) }
        #expect(error.code == .noSpace, "\(error)")
        var heldStatus = stat(), pathStatus = stat()
        #expect(fstat(held, &heldStatus) == 0)
        #expect(stat(lockFile, &pathStatus) == 0, "lock.mdb was removed")
        #expect(heldStatus.st_ino == pathStatus.st_ino)
        try fs.release(filler)
        try Self.expectTwoCommits(try Store(path: path))
    }

    /// The lock file's blocks are allocated, not its size: LMDB's first opener sizes an empty lock
    /// file for its own count of readers, and a kvstore opening beside it must not enlarge it. The
    /// blocks allocated stay when LMDB's `ftruncate` grows the file over them: on a full disk its
    /// map of the lock file is backed (no `SIGBUS`) and the store opens.
    @Test func anEmptyLockFileGetsItsBlocksButKeepsItsSize() throws {
        let fs = try ScratchFileSystem(size: 1 << 20)
        defer { fs.unmount() }
        let path = fs.path("store")
        do { _ = try Self.storeWithTwoCommits(on: fs) }
        let lockFile = path + "/lock.mdb"
        let lockFileSize = StoreFiles.lockFileSize(maxReaders: 126)
        #expect(truncate(lockFile, 0) == 0)  // as another opener's LMDB has it before sizing it
        try StoreFiles.allocateLockFile(in: path, maxReaders: 126, fileMode: 0o600)
        var status = stat()
        #expect(stat(lockFile, &status) == 0)
        #expect(status.st_size == 0)
        #expect(Int(status.st_blocks) * 512 >= lockFileSize)

        fs.fill()
        #expect(StoreFiles.deviceIsFull(fs.path))
        try Self.expectTwoCommits(try Store(path: path))
        #expect(stat(lockFile, &status) == 0)
        #expect(status.st_size == lockFileSize)
    }

    /// Creating a store on a full disk: one error, and no half-made store is left to be taken
    /// for one (opening it later either fails as "not a store" or, once space is freed, makes it).
    @Test func creatingAStoreOnAFullDiskFails() throws {
        let fs = try ScratchFileSystem(size: 1 << 20)
        defer { fs.unmount() }
        let filler = fs.fill()
        let error = try #require(throws: StoreError.self) { try Store(path: fs.path("store")) }
        #expect(error.code == .noSpace, "\(error)")
        try fs.release(filler)
        let store = try Store(path: fs.path("store"))
        try store.insert(["name": "Ada"], as: ref("person/ada"))
        #expect(try store.verify().isHealthy)
    }
}
