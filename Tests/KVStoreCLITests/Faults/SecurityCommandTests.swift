import Foundation
import Testing
import TestSupport

/// What the command line writes, and where: every command that creates a store makes it owner
/// only (0700 directory, 0600 files); nothing lands outside the paths a command names — record
/// kinds and ids, consumer names and key paths never become file names, and a store file that is
/// a symbolic link is refused rather than followed.
@Suite(.tags(.subprocess), .skippedByTag) struct SecurityCommandTests {
    /// Every file and directory under the test's directory, with its mode.
    static func tree(_ dir: TestDirectory) -> [String: Int] {
        var modes: [String: Int] = [:]
        let base = dir.url.path
        for case let relative as String in FileManager.default.enumerator(atPath: base) ?? FileManager.DirectoryEnumerator() {
            let mode = (try? FileManager.default.attributesOfItem(atPath: base + "/" + relative))?[.posixPermissions] as? Int
            modes[relative] = mode ?? -1
        }
        return modes
    }

    @Test func everyCommandThatCreatesAStoreMakesItOwnerOnly() throws {
        let dir = try TestDirectory()
        let source = dir.path("source")
        try dir.succeed("set", source, "person/ada", "name", #""Ada""#)
        let stream = dir.outputs.appendingPathComponent("stream")
        _ = try KVStoreExecutable.run(["journal", "export", source], in: dir, output: stream)
        let jsonl = dir.outputs.appendingPathComponent("in.jsonl").path
        try Data(#"{"kind":"note","id":"1","values":{}}"#.utf8 + [10]).write(to: URL(fileURLWithPath: jsonl))
        try dir.succeed("load", dir.path("loaded"), jsonl)
        try dir.succeed("journal", "apply", dir.path("applied"), stream.path)
        try dir.succeed("replicate", source, dir.path("replica"))
        try dir.succeed("replicate", source, dir.path("seeded"), "--snapshot")
        try dir.succeed("replay", source, "--into", dir.path("replayed"))
        _ = try dir.kvstore("demo", dir.path("demo"))
        for store in ["source", "loaded", "applied", "replica", "seeded", "replayed", "demo"] {
            let modes = Self.tree(dir).filter { $0.key == store || $0.key.hasPrefix(store + "/") }
            #expect(modes == [store: 0o700, store + "/data.mdb": 0o600, store + "/lock.mdb": 0o600], "\(store)")
        }
        // Nothing else was left beside them (no snapshot or seeding leftovers).
        #expect(Set(Self.tree(dir).keys.filter { !$0.contains("/") }) == ["source", "loaded", "applied", "replica", "seeded", "replayed", "demo"])
    }

    /// Kinds, ids, key paths and consumer names full of `/` and `..` are data, never paths.
    @Test func namesFullOfDotsAndSlashesStayInsideTheStore() throws {
        let dir = try TestDirectory()
        let store = dir.path("store")
        try dir.succeed("set", store, "person/ada", "name", #""Ada""#)
        let before = Set(Self.tree(dir).keys)
        try dir.succeed("set", store, "note/../../../etc/passwd", "text", #""x""#)
        try dir.succeed("set", store, "note/..", "a", #"{"../b":1}"#)
        _ = try dir.kvstore("set", store, "../note/x", "a", "1")
        try dir.succeed("journal", "consumers", store, "--register", "../../escape")
        try dir.succeed("render", store, "note/..", "--text", "[[a]]")
        #expect(Set(Self.tree(dir).keys) == before)
        #expect(try dir.succeed("get", store, "note/../../../etc/passwd", "text").stdout == "\"x\"\n")
    }

    /// A replica directory whose data file is a link to a file elsewhere: refused in one line,
    /// nothing written where the link points.
    @Test func aLinkedDataFileInADestinationIsRefused() throws {
        let dir = try TestDirectory()
        let source = dir.path("source")
        try dir.succeed("set", source, "person/ada", "name", #""Ada""#)
        let replica = dir.path("replica"), elsewhere = dir.path("elsewhere")
        try FileManager.default.createDirectory(atPath: replica, withIntermediateDirectories: false)
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: replica + "/data.mdb", withDestinationPath: elsewhere + "/data.mdb")
        let stream = dir.outputs.appendingPathComponent("stream")
        _ = try KVStoreExecutable.run(["journal", "export", source], in: dir, output: stream)
        for arguments in [["replicate", source, replica], ["set", replica, "person/ada", "name", "1"], ["journal", "apply", replica, stream.path]] {
            let result = try KVStoreExecutable.run(arguments, in: dir)
            #expect(result.status == 1, "\(arguments): \(result)")
            #expect(result.stderr.hasPrefix("kvstore: ") && result.stderr.filter { $0 == "\n" }.count == 1, "\(result)")
            #expect(result.stderr.contains("data.mdb is a symbolic link") || result.stderr.contains("not a kvstore store"), "\(arguments): \(result)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)
    }

    /// Values are HTML-escaped in `render` unless the tag says `raw`, and a value that looks like
    /// a tag is text, not a template.
    @Test func renderEscapesValuesAndNeverExpandsThem() throws {
        let dir = try TestDirectory()
        let store = dir.path("store")
        try dir.succeed("set", store, "person/ada", "name", #""<script>alert('x')</script> & [[secret]]""#)
        try dir.succeed("set", store, "person/ada", "secret", #""hidden""#)
        #expect(try dir.succeed("render", store, "person/ada", "--text", "<p>[[name]]</p>").stdout
                == "<p>&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; [[secret]]</p>")
        #expect(try dir.succeed("render", store, "person/ada", "--text", "[[raw name]]").stdout
                == "<script>alert('x')</script> & [[secret]]")
    }
}
