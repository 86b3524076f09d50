import Foundation
import KVStore
import Testing
import TestSupport

/// The bad-input matrix, continued: input that meets a file system that cannot take it, and
/// paths that are not what they seem.
extension BadInputMatrixTests {
    /// `count` jsonl records `note/1`…, as `dump` writes them.
    static func notes(_ count: Int) -> Data {
        Data((1...count).map { #"{"kind":"note","id":"\#($0)","values":{"n":\#($0),"text":"note number \#($0)"}}"# + "\n" }.joined().utf8)
    }

    /// Standard input is copied to a temporary file first (`load -`, `journal apply -`): when the
    /// temporary directory's file system fills up during the copy, the command fails in one line
    /// naming that file system, and loads or applies nothing — never a part of the input with
    /// status 0, nor a complaint about the input itself.
    @Test(.tags(.root), .enabled(if: ScratchFileSystem.isAvailable, Comment(rawValue: ScratchFileSystem.unavailableReason)))
    func aFullTemporaryDirectoryFailsReadingStandardInputInOneLine() throws {
        let dir = try TestDirectory()
        let fs = try ScratchFileSystem(size: 512 << 10)
        defer { fs.unmount() }
        let store = dir.path("store"), new = dir.path("new")
        try dir.succeed("set", store, "person/ada", "name", #""Ada""#)
        let records = Self.notes(50_000)
        #expect(records.count > 2 << 20)
        let source = dir.path("source")
        let loaded = try KVStoreExecutable.run(["load", source, "-"], in: dir, piped: records)
        try #require(loaded.status == 0, "\(loaded)")
        let stream = dir.outputs.appendingPathComponent("stream")
        _ = try KVStoreExecutable.run(["journal", "export", source], in: dir, output: stream)
        let before = try dir.snapshot(store)
        let message = "cannot write the temporary copy of standard input (\(fs.path)/kvstore-spool-"
        let full = "No space left on device; the file system mounted on \(fs.path) is full; set TMPDIR to a directory with room"
        for (arguments, input) in [(["load", store, "-"], records), (["load", new, "-"], records),
                                   (["journal", "apply", store, "-"], try Data(contentsOf: stream))] {
            let result = try KVStoreExecutable.run(arguments, in: dir, piped: input, environment: ["TMPDIR": fs.path])
            let what = arguments.prefix(2).joined(separator: " ")
            FileSystemFaultCommandTests.expectFailure(result, says: message, what)
            #expect(result.stderr.contains(full), "\(what): \(result)")
        }
        #expect(try dir.snapshot(store) == before)
        #expect(!FileManager.default.fileExists(atPath: new))
        #expect(try FileManager.default.contentsOfDirectory(atPath: fs.path).isEmpty, "the temporary copies are removed")
    }
}

extension BadInputMatrixTests {
    /// `replicate --snapshot` writes a snapshot of the source beside the replica, then copies it
    /// into the replica: when the replica's file system fills up at either step, the error names
    /// that file system (not the source), in one line, and leaves nothing behind.
    @Test(.tags(.root, .network), .enabled(if: ScratchFileSystem.isAvailable, Comment(rawValue: ScratchFileSystem.unavailableReason)))
    func aFullDiskWhileSeedingAReplicaNamesTheReplicasFileSystem() throws {
        let dir = try TestDirectory()
        let source = dir.path("source")
        let loaded = try KVStoreExecutable.run(["load", source, "-"], in: dir, piped: Self.notes(20_000))
        try #require(loaded.status == 0, "\(loaded)")
        let snapshot = dir.outputs.appendingPathComponent("snapshot.mdb").path
        do {
            let descriptor = open(snapshot, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            defer { close(descriptor) }
            try Store(path: source).writeSnapshot(to: descriptor)
        }
        let size = try #require(try FileManager.default.attributesOfItem(atPath: snapshot)[.size] as? Int)
        // Room for half the snapshot; then for the snapshot but not its copy.
        for (room, what) in [(size / 2, "a snapshot of \(source)"), (size * 3 / 2, "a copy of the snapshot")] {
            let fs = try ScratchFileSystem(size: room)
            defer { fs.unmount() }
            let replica = fs.path("replica")
            let result = try dir.kvstore("replicate", source, replica, "--snapshot")
            FileSystemFaultCommandTests.expectFailure(result, says: "cannot write \(what) (\(fs.path)/.replica.", what)
            #expect(result.stderr.contains("No space left on device; the file system mounted on \(fs.path) is full"), "\(result)")
            let left = try FileManager.default.contentsOfDirectory(atPath: fs.path)
            #expect(left.isEmpty, "\(what): \(left)")
        }
        // The same snapshot received from `kvstore serve` (it was written through FileHandle, whose
        // error was a raw NSError).
        let server = try BackgroundCommand(["serve", source, "--listen", "127.0.0.1:0"], in: dir)
        defer { _ = server.stop() }
        let listening = try #require(server.waitForLines(1).first, "serve printed nothing: \(server.stderr)")
        let address = "tcp://" + listening.dropFirst("listening on ".count)
        let fs = try ScratchFileSystem(size: size / 2)
        defer { fs.unmount() }
        let result = try dir.kvstore("replicate", address, fs.path("replica"), "--snapshot")
        FileSystemFaultCommandTests.expectFailure(
            result, says: "cannot write the snapshot received from \(address) (\(fs.path)/.replica.snapshot-", "over TCP")
        #expect(result.stderr.contains("No space left on device; the file system mounted on \(fs.path) is full"), "\(result)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: fs.path).isEmpty)
    }
}

extension BadInputMatrixTests {
    /// A store path that is a dangling symbolic link: every command that would create a store
    /// there refuses it in one line naming the link's target, and the link stays (a failed command
    /// took back "its" new store by removing the link); nothing is created where it points.
    @Test func aDanglingSymbolicLinkIsRefusedAndKept() throws {
        let dir = try TestDirectory()
        let good = dir.path("GOOD")
        try dir.succeed("set", good, "person/ada", "name", #""Ada""#)
        try dir.export(good, to: "stream")
        let jsonl = try dir.write(#"{"kind":"note","id":"1","values":{}}"# + "\n" + "not json\n", to: "in.jsonl")
        let link = dir.path("LINK"), target = dir.path("nowhere")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let commands: [[String]] = [
            ["set", "LINK", "note/1", "n", "1"], ["load", "LINK", jsonl], ["journal", "apply", "LINK", dir.path("stream")],
            ["replicate", "GOOD", "LINK"], ["replicate", "GOOD", "LINK", "--snapshot"], ["replay", "GOOD", "--into", "LINK"],
            ["get", "LINK", "note/1"], ["dump", "LINK"], ["stat", "LINK"],
        ]
        let before = Self.contents(of: dir.url.path)
        for command in commands {
            let arguments = command.map { ["LINK": link, "GOOD": good][$0] ?? $0 }
            try dir.fail(arguments, says: "\(link): is a symbolic link to '\(target)', which does not exist")
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target, "\(command)")
            #expect(!FileManager.default.fileExists(atPath: target), "\(command)")
            #expect(Self.contents(of: dir.url.path) == before, "\(command) changed files")
        }
    }

    /// A link to a directory is followed: the store is made in the directory, and a failed
    /// command takes back only the store's files, never the link or the directory.
    @Test func aLinkToADirectoryIsFollowedAndKept() throws {
        let dir = try TestDirectory()
        let good = dir.path("GOOD"), link = dir.path("LINK"), target = dir.path("target")
        try dir.succeed("set", good, "person/ada", "name", #""Ada""#)
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let jsonl = try dir.write("not json\n", to: "in.jsonl")
        try dir.fail(["load", link, jsonl], says: "line 1")
        #expect(try FileManager.default.contentsOfDirectory(atPath: target).isEmpty)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
        try dir.succeed("replicate", good, link, "--snapshot")
        // Behind the source's truncation point: the replica is seeded again, in the link's target.
        try dir.succeed("set", good, "person/bob", "name", #""Bob""#)
        try dir.succeed("set", good, "person/cy", "name", #""Cy""#)
        try dir.succeed("journal", "truncate", good, "--before", "3", "--force")
        #expect(try dir.succeed("replicate", good, link).stdout.contains("seeded from a snapshot"))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
        #expect(try dir.succeed("diff", good, target).stdout.isEmpty)
    }
}

extension BadInputMatrixTests {
    /// `replicate` and `journal apply` commit in batches: a disk that fills after some batches
    /// committed fails in one line saying how far the replica got (its checkpoint, as `stat`
    /// shows it) and that running the command again continues — not "nothing was written". One
    /// that fills before any batch says nothing was written, and the new replica is removed.
    @Test(.tags(.root), .enabled(if: ScratchFileSystem.isAvailable, Comment(rawValue: ScratchFileSystem.unavailableReason)))
    func aDiskFillingDuringReplicationSaysWhatWasCommitted() throws {
        let dir = try TestDirectory()
        let source = dir.path("source")
        let loaded = try KVStoreExecutable.run(["load", source, "-", "--batch", "1000"], in: dir, piped: Self.notes(40_000))
        try #require(loaded.status == 0, "\(loaded)")
        try dir.export(source, to: "stream")
        var partial = 0
        for megabytes in [1, 3, 5, 7] {
            for (command, arguments) in [("replicate", ["replicate", source]), ("journal apply", ["journal", "apply"])] {
                let fs = try ScratchFileSystem(size: megabytes << 20)
                defer { fs.unmount() }
                let replica = fs.path("replica")
                let result = try KVStoreExecutable.run(command == "replicate" ? arguments + [replica] : arguments + [replica, dir.path("stream")], in: dir)
                let what = "\(command), \(megabytes) MiB"
                FileSystemFaultCommandTests.expectFailure(result, says: "\(replica): no space left on the device", what)
                guard let through = result.stderr.firstRange(of: "holds the source's entries through ") else {
                    #expect(result.stderr.hasSuffix("; nothing was written\n"), "\(what): \(result)")
                    #expect(!FileManager.default.fileExists(atPath: replica), "\(what)")
                    continue
                }
                partial += 1
                let sequence = result.stderr[through.upperBound...].prefix { $0.isNumber }
                #expect(!result.stderr.contains("nothing was written"), "\(what): \(result)")
                #expect(result.stderr.contains("free space and run 'kvstore \(command)' again to continue"), "\(what): \(result)")
                let stat = try dir.succeed("stat", replica, "--format", "json").stdout
                #expect(stat.contains(#""applied": \#(sequence),"#), "\(what): \(sequence) vs \(stat)")
            }
        }
        #expect(partial >= 2, "some sizes let batches commit before the disk filled")
    }
}
