import Foundation
import KVStore
import LMDB
import Testing
import TestSupport

/// Creating a store: built beside in a hidden directory and linked in whole, so that a store's
/// directory never holds half a store (see `StoreCreation`): nothing is left by a creation that
/// fails, what a killed one leaves is recognised and cleared, and creators racing for one path
/// agree on one store.
@Suite(.tags(.subprocess), .skippedByTag) struct StoreCreationTests {
    /// A full disk while a store is made leaves no file that later commands take for a store
    /// (an empty `lock.mdb` made them fail with "no data.mdb in the directory" once space was freed).
    @Test(.tags(.root), .enabled(if: ScratchFileSystem.isAvailable, Comment(rawValue: ScratchFileSystem.unavailableReason)))
    func aFullDiskWhileCreatingLeavesNothingAndCreatingWorksOnceSpaceIsFreed() throws {
        let dir = try TestDirectory()
        let fs = try ScratchFileSystem(size: 1 << 20)
        defer { fs.unmount() }
        let store = fs.path("store")
        let filler = fs.fill()
        try dir.fail(["set", store, "person/ada", "name", #""Ada""#], says: "\(store): no space left on the device")
        #expect(StoreDirectory.isEmpty(atPath: store))
        #expect((try? FileManager.default.contentsOfDirectory(atPath: store)) ?? [] == [], "nothing is left in the store's directory")
        try fs.release(filler)
        try dir.succeed("set", store, "person/ada", "name", #""Ada""#)
        #expect(try dir.succeed("get", store, "person/ada", "name").stdout == "\"Ada\"\n")
    }

    /// What kvstore before this rule left on a full disk — an empty `lock.mdb` alone — is taken
    /// for a leftover: creating there works.
    @Test func anEmptyLockFileAloneIsALeftover() throws {
        let dir = try TestDirectory()
        let store = dir.path("store")
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: false)
        try dir.write("", to: "store/lock.mdb")
        try dir.succeed("set", store, "person/ada", "name", #""Ada""#)
        #expect(try dir.succeed("get", store, "person/ada", "name").stdout == "\"Ada\"\n")
        try dir.succeed("verify", store)
    }

    /// A creation killed part way leaves only its hidden building directory: the next creation
    /// clears it (unless a process holds its lock: still being built) and makes the store.
    @Test func aKilledCreationsLeftoverIsClearedAndABuildingOneKept() throws {
        let dir = try TestDirectory()
        let store = dir.path("store")
        let killed = store + "/.kvstore-creating-\(UUID().uuidString)"
        let building = store + "/.kvstore-creating-\(UUID().uuidString)"
        for leftover in [killed, building] {
            try FileManager.default.createDirectory(atPath: leftover, withIntermediateDirectories: true)
            _ = try Environment.open(path: leftover)  // an empty environment, as a kill leaves it
        }
        let descriptor = open(building, O_RDONLY)
        defer { close(descriptor) }
        #expect(flock(descriptor, LOCK_EX) == 0)
        #expect(StoreDirectory.isEmpty(atPath: store))
        try dir.succeed("set", store, "person/ada", "name", #""Ada""#)
        #expect(!FileManager.default.fileExists(atPath: killed))
        #expect(FileManager.default.fileExists(atPath: building))
        #expect(try dir.succeed("get", store, "person/ada", "name").stdout == "\"Ada\"\n")
    }

    /// Three processes creating one new store at once: one makes it, the others open what it made
    /// (they failed with "no data.mdb" 14 times in 40 when each saw the others' half-made files).
    @Test func concurrentCreatorsAllSucceedOnOneStore() throws {
        let dir = try TestDirectory()
        for round in 0..<40 {
            let store = dir.path("store\(round)")
            let processes = try (1...3).map { writer in
                try BackgroundCommand(["set", store, "note/\(writer)", "n", "\(writer)"], in: dir, readingOutput: true)
            }
            for (writer, process) in processes.enumerated() {
                let status = process.waitForExit()
                #expect(status == 0, "round \(round), writer \(writer + 1): exit \(status): \(process.stderr)")
            }
            #expect(try dir.succeed("dump", store).lines.count == 3, "round \(round)")
        }
    }
}
