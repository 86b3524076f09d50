import Foundation
import Testing
import TestSupport

/// The command line on a full disk, on a read-only file system, and run by a user who may not
/// read or write the store: one line `kvstore: …` naming the problem, exit 1, the store unchanged.
/// The tmpfs cases need root (to mount); the permission cases need root too (to run the tool as
/// `nobody` with `setpriv`: root itself ignores permission bits). Both skip, saying so, otherwise.
@Suite(.tags(.subprocess, .root), .skippedByTag) struct FileSystemFaultCommandTests {
    static let canRunAsNobody = geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")

    /// Expects `result` to be the one-line failure naming `message`.
    static func expectFailure(_ result: CommandResult, says message: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == 1, "\(what): \(result)", sourceLocation: sourceLocation)
        #expect(result.stdout.isEmpty, "\(what): \(result)", sourceLocation: sourceLocation)
        #expect(result.stderr.hasPrefix("kvstore: ") && result.stderr.filter { $0 == "\n" }.count == 1
                && result.stderr.hasSuffix("\n"), "\(what): one line: \(result)", sourceLocation: sourceLocation)
        #expect(result.stderr.contains(message), "\(what): \(result)", sourceLocation: sourceLocation)
    }

    @Test(.enabled(if: ScratchFileSystem.isAvailable, Comment(rawValue: ScratchFileSystem.unavailableReason)))
    func aFullDiskFailsSetAndLoadInOneLineAndWritingWorksOnceSpaceIsFreed() throws {
        let dir = try TestDirectory()
        let fs = try ScratchFileSystem(size: 1 << 20)
        defer { fs.unmount() }
        let store = fs.path("store")
        try dir.succeed("set", store, "person/ada", "name", #""Ada""#)
        let big = "\"" + String(repeating: "x", count: 100_000) + "\""
        let jsonl = try dir.write(#"{"kind":"note","id":"1","values":{"text":\#(big)}}"# + "\n", to: "notes.jsonl")
        let filler = fs.fill()
        let before = try dir.snapshot(store)
        Self.expectFailure(try dir.kvstore("set", store, "person/ada", "bio", big), says: "\(store): no space left on the device", "set")
        Self.expectFailure(try dir.kvstore("load", store, jsonl), says: "\(store): no space left on the device", "load")
        #expect(try dir.snapshot(store) == before)
        #expect(try dir.succeed("verify", store).status == 0)
        try fs.release(filler)
        try dir.succeed("set", store, "person/ada", "bio", big)
        try dir.succeed("load", store, jsonl)
        #expect(try dir.succeed("verify", store).status == 0)
    }

    @Test(.enabled(if: ScratchFileSystem.isAvailable, Comment(rawValue: ScratchFileSystem.unavailableReason)))
    func onAReadOnlyFileSystemReadsWorkAndEveryWriteFailsInOneLine() throws {
        let dir = try TestDirectory()
        let fs = try ScratchFileSystem(size: 2 << 20)
        defer { fs.unmount() }
        let store = fs.path("store")
        try dir.succeed("set", store, "person/ada", "name", #""Ada""#)
        try dir.succeed("journal", "consumers", store, "--register", "indexer", "--after", "0")
        let source = dir.path("source")
        try dir.succeed("set", source, "note/1", "n", "1")
        let stream = dir.outputs.appendingPathComponent("stream")
        _ = try KVStoreExecutable.run(["journal", "export", source], in: dir, output: stream)
        let jsonl = try dir.write(#"{"kind":"note","id":"2","values":{}}"# + "\n", to: "notes.jsonl")
        try #require(fs.remount(readOnly: true))
        let before = try dir.snapshot(store)
        #expect(before.contains("Ada"))
        #expect(try dir.succeed("get", store, "person/ada", "name").stdout == "\"Ada\"\n")
        try dir.succeed("stat", store)
        try dir.succeed("verify", store)
        // Every command the write error names as working does.
        try dir.succeed("value", store, "person", "@count")
        try dir.succeed("diff", store, store)
        #expect(try KVStoreExecutable.run(["journal", "export", store], in: dir, output: dir.outputs.appendingPathComponent("ro")).status == 0)
        let writes: [[String]] = [
            ["set", store, "person/ada", "name", #""Bob""#],
            ["rm", store, "person/ada"],
            ["load", store, jsonl],
            ["journal", "apply", store, stream.path],
            ["journal", "truncate", store, "--before", "2", "--force"],
            ["journal", "consumers", store, "--register", "other"],
            ["journal", "consumers", store, "--unregister", "indexer"],
            ["journal", "list", store, "--consumer", "indexer"],
            ["replicate", source, store],
            ["promote", store],
        ]
        for arguments in writes {
            Self.expectFailure(try KVStoreExecutable.run(arguments, in: dir),
                               says: "\(store): the store is on a read-only file system: it can be read (get, dump, value, journal list, journal export, stat, verify, diff), not changed",
                               arguments.prefix(2).joined(separator: " "))
        }
        Self.expectFailure(try dir.kvstore("set", fs.path("new"), "person/ada", "name", #""Ada""#),
                           says: "cannot create the store directory", "creating a store")
        #expect(try dir.snapshot(store) == before)
    }

    /// Runs `kvstore` as the unprivileged user `nobody`.
    static func runAsNobody(_ arguments: [String], in dir: TestDirectory) throws -> CommandResult {
        try KVStoreExecutable.run(arguments, in: dir, launcher: ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"])
    }

    /// A store whose directory or files the user may not read or write.
    @Test(.enabled(if: canRunAsNobody, "needs root and setpriv, to run the tool as nobody: root ignores permission bits"))
    func wrongPermissionsGiveOneClearError() throws {
        let dir = try TestDirectory()
        let store = dir.path("store")
        try dir.succeed("set", store, "person/ada", "name", #""Ada""#)
        let before = try dir.snapshot(store)
        let manager = FileManager.default
        // The directory is the owner's (0700, as made): nobody may not enter it.
        for arguments in [["get", store, "person/ada"], ["set", store, "person/ada", "name", "1"], ["stat", store], ["rm", store, "person/ada"]] {
            Self.expectFailure(try Self.runAsNobody(arguments, in: dir), says: "\(store): permission denied reading the store directory", arguments[0])
        }
        // The directory is open to all, the files are the owner's (0600, as made).
        try manager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: store)
        for arguments in [["get", store, "person/ada"], ["set", store, "person/ada", "name", "1"], ["dump", store]] {
            Self.expectFailure(try Self.runAsNobody(arguments, in: dir), says: "\(store): permission denied opening the store's files", arguments[0])
        }
        // Files readable by all but writable by the owner only: LMDB needs to write its lock file
        // even to read, so reading is refused too.
        for file in ["data.mdb", "lock.mdb"] { try manager.setAttributes([.posixPermissions: 0o644], ofItemAtPath: store + "/" + file) }
        Self.expectFailure(try Self.runAsNobody(["get", store, "person/ada"], in: dir), says: "permission denied opening the store's files", "get")
        // A new store where nobody may not create the directory.
        try manager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: dir.url.path)
        Self.expectFailure(try Self.runAsNobody(["set", dir.path("new"), "person/ada", "name", "1"], in: dir),
                           says: "\(dir.path("new")): cannot create the store directory", "set")
        #expect(!manager.fileExists(atPath: dir.path("new")))
        #expect(try dir.snapshot(store) == before)
    }
}
