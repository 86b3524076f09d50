import Foundation
import Testing
import TestSupport
@testable import KVStore

/// `lock.mdb` or `data.mdb` removed or replaced under an open store: LMDB goes on with the files
/// it opened, so a process that opens the store afterwards locks a new lock table and writes at
/// the same time (that destroyed stores), and this one stops seeing its commits. The store
/// refuses every write from then on with one `filesReplaced` error, and a follower stops with
/// it instead of waiting silently; what was committed stays intact.
@Suite struct FilesReplacedTests {
    enum Change: String, CaseIterable, CustomStringConvertible {
        case lockRemoved, lockReplaced, dataReplaced
        var description: String { rawValue }
        var file: String { self == .dataReplaced ? "data.mdb" : "lock.mdb" }

        /// Removes the file, or puts a copy of it (another inode) in its place.
        func apply(in path: String) throws {
            let file = path + "/" + self.file
            if self == .lockRemoved { return try FileManager.default.removeItem(atPath: file) }
            try FileManager.default.copyItem(atPath: file, toPath: file + ".new")
            guard rename(file + ".new", file) == 0 else { throw CocoaError(.fileWriteUnknown) }
        }
    }

    static func message(_ change: Change, _ path: String) -> String {
        "\(path): \(change.file) was removed or replaced while the store was open; close every process using the store and open it again"
    }

    @Test(arguments: Change.allCases)
    func writesAreRefusedAndTheDataStaysIntact(_ change: Change) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store")
        do {
            let store = try Store(path: path)
            try store.insert(["name": "Ada"], as: ref("person/ada"))
            try change.apply(in: path)
            for _ in 0..<2 {  // and it stays refused
                let error = #expect(throws: StoreError.self) { try store.insert(["name": "Bob"], as: ref("person/bob")) }
                #expect(error?.code == .filesReplaced)
                #expect(error?.description == Self.message(change, path))
            }
            // A store opened at the path now is on the directory's files, and writes.
            let again = try Store(path: path)
            try again.insert(["name": "Cy"], as: ref("person/cy"))
            #expect(throws: StoreError.self) { try store.setValue("x", forKey: "name", of: ref("person/ada")) }
        }
        let reopened = try Store(path: path)
        #expect(try reopened.record(ref("person/ada")) == ["name": "Ada"])
        #expect(try reopened.record(ref("person/bob")) == nil)
        #expect(try reopened.record(ref("person/cy")) == ["name": "Cy"])
        let report = try reopened.verify()
        #expect(report.isHealthy, "\(report.findings)")
    }

    /// The store's directory renamed while open: its files are the same ones, so writes go on.
    /// The lock file was looked up by the path given at opening, which then named nothing, and
    /// every write was refused as if `lock.mdb` had been replaced (as with a relative path after
    /// the process changed its working directory).
    @Test func aRenamedDirectoryIsNotAReplacedFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store"), moved = directory.path("moved")
        let store = try Store(path: path)
        try store.insert(["name": "Ada"], as: ref("person/ada"))
        #expect(rename(path, moved) == 0)
        try store.insert(["name": "Bob"], as: ref("person/bob"))
        #expect(try Store(path: moved).record(ref("person/bob")) == ["name": "Bob"])
    }

    /// `data.mdb` replaced while another name links the old file (a backup made with `ln`): the
    /// check looked at the open file's count of links, which stayed at one, and writes went on
    /// into the file no one else opens.
    @Test func aReplacedDataFileWithAnotherLinkIsNoticed() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store")
        let store = try Store(path: path)
        try store.insert(["name": "Ada"], as: ref("person/ada"))
        #expect(link(path + "/data.mdb", directory.path("backup.mdb")) == 0)
        try Change.dataReplaced.apply(in: path)
        let error = #expect(throws: StoreError.self) { try store.insert(["name": "Bob"], as: ref("person/bob")) }
        #expect(error?.code == .filesReplaced)
        #expect(error?.description == Self.message(.dataReplaced, path))
    }

    /// Writes waiting in a group commit are refused too.
    @Test func groupedWritesAreRefused() throws {
        let t = try TemporaryStore()
        try t.store.insert(["n": 0], as: ref("counter/a"))
        try Change.lockRemoved.apply(in: t.path)
        let failures = LockedCounter(), store = t.store
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            do { try store.insert(["n": .int(Int64(index))], as: ref("counter/\(index)")) } catch let error as StoreError where error.code == .filesReplaced {
                failures.add()
            } catch {}
        }
        #expect(failures.value == 8)
    }

    @Test(arguments: Change.allCases)
    func aFollowerStopsWithTheError(_ change: Change) throws {
        let t = try TemporaryStore()
        try t.store.insert(["name": "Ada"], as: ref("person/ada"))
        let follower = JournalFollower(store: t.store, after: 1)
        let outcome = LockedResult()
        let thread = Thread {
            do { try follower.run { _ in } } catch { outcome.set(error) }
        }
        thread.start()
        Thread.sleep(forTimeInterval: 0.05)
        try change.apply(in: t.path)
        let deadline = Date().addingTimeInterval(5)
        while outcome.error == nil, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        follower.stop()
        let error = try #require(outcome.error as? StoreError, "the follower went on silently")
        #expect(error.code == .filesReplaced)
        #expect(error.description == Self.message(change, t.path))
    }
}

/// A counter and an error slot shared with other threads.
private final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

private final class LockedResult: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: (any Error)?
    func set(_ error: any Error) { lock.withLock { stored = error } }
    var error: (any Error)? { lock.withLock { stored } }
}
