import Foundation
import KVStore
import LMDB
import Testing
import TestSupport

/// The bad-input matrix: every command that reads a store, given one that is damaged or not a
/// store at all — and the inputs users get wrong, beyond ``ErrorTests`` and ``NewUserErrorTests``.
/// Each case: exactly one line on standard error starting `kvstore: ` and naming the problem, a
/// non-zero exit (1; 2 for `verify` and `diff`, whose 1 means findings), nothing on standard
/// output, and every file involved byte for byte as it was.
@Suite(.tags(.subprocess), .skippedByTag) struct BadInputMatrixTests {
    /// A store directory that is not a usable store, and the words every command must use for it.
    enum Damage: String, CaseIterable, Sendable {
        case garbage, truncated, newerFormat, foreignLMDB, emptyDataFile, emptyEnvironment

        var message: String {
            switch self {
            case .garbage: "not a kvstore store (data.mdb is not an LMDB file)"
            case .truncated: "data.mdb is truncated"
            case .newerFormat: "the store has format 5, newer than this kvstore reads (4)"
            case .foreignLMDB, .emptyEnvironment: "not a kvstore store (an LMDB environment without kvstore metadata)"
            case .emptyDataFile: "not a kvstore store (data.mdb is empty)"
            }
        }

        /// Makes the damaged store at `path`.
        func make(at path: String) throws {
            let manager = FileManager.default
            switch self {
            case .garbage:
                try manager.createDirectory(atPath: path, withIntermediateDirectories: false)
                // Deterministic noise: a multiplicative hash of each offset.
                let bytes = (0..<16_384).map { UInt8(truncatingIfNeeded: (UInt32($0) &* 2_654_435_761) >> 13) }
                try Data(bytes).write(to: URL(fileURLWithPath: path + "/data.mdb"))
            case .truncated:
                let size: Int
                do {
                    let store = try Store(path: path)
                    try store.write { txn in
                        for i in 0..<200 { try txn.insert(["blob": .bytes(Data(repeating: 1, count: 2000))], as: try RecordRef("blob/\(i)")) }
                    }
                    size = try #require(try manager.attributesOfItem(atPath: path + "/data.mdb")[.size] as? Int)
                }
                let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path + "/data.mdb"))
                try handle.truncate(atOffset: UInt64(size / 2))
                try handle.close()
            case .newerFormat:
                do {
                    let store = try Store(path: path)
                    try store.insert(["name": "Ada"], as: try RecordRef("person/ada"))
                }
                let environment = try Environment.open(path: path)
                try environment.write { txn in
                    let meta = try txn.openDatabase("meta", create: false)
                    try txn.put(Array("format".utf8), withUnsafeBytes(of: UInt32(5).littleEndian, Array.init), in: meta)
                }
            case .foreignLMDB:
                try manager.createDirectory(atPath: path, withIntermediateDirectories: false)
                let environment = try Environment.open(path: path)
                let other = try environment.openDatabase("other")
                try environment.write { txn in try txn.put(Array("k".utf8), Array("v".utf8), in: other) }
            case .emptyDataFile:
                // What kvstore before the creation rule left when killed while creating — or damage.
                try manager.createDirectory(atPath: path, withIntermediateDirectories: false)
                try Data().write(to: URL(fileURLWithPath: path + "/data.mdb"))
            case .emptyEnvironment:
                try manager.createDirectory(atPath: path, withIntermediateDirectories: false)
                _ = try Environment.open(path: path)
            }
        }
    }

    /// Every command reading or writing the store `BAD`: `GOOD` is a healthy store, `STREAM` its
    /// exported journal, `JSONL` a record to load, `NEW` a path where nothing is.
    static let commands: [[String]] = [
        ["get", "BAD", "person/ada"], ["get", "BAD", "person/ada", "name"], ["dump", "BAD"],
        ["set", "BAD", "person/ada", "name", #""Bob""#], ["rm", "BAD", "person/ada"], ["value", "BAD", "person", "@count"],
        ["load", "BAD", "JSONL"], ["journal", "list", "BAD"], ["journal", "export", "BAD"],
        ["journal", "apply", "BAD", "STREAM"], ["journal", "truncate", "BAD", "--before", "1"],
        ["journal", "consumers", "BAD"], ["journal", "consumers", "BAD", "--register", "x"],
        ["replay", "BAD", "--into", "NEW"], ["replicate", "BAD", "NEW"], ["replicate", "GOOD", "BAD"],
        ["promote", "BAD"], ["stat", "BAD"], ["verify", "BAD"], ["diff", "BAD", "GOOD"], ["diff", "GOOD", "BAD"],
        ["render", "BAD", "person/ada", "--text", "[[name]]"],
    ]

    /// The bytes of every file in `directory` (recursively), to prove nothing changed. Lock files
    /// are left out: opening a store writes its reader table.
    static func contents(of directory: String) -> [String: Data] {
        var files: [String: Data] = [:]
        for case let relative as String in FileManager.default.enumerator(atPath: directory) ?? FileManager.DirectoryEnumerator()
        where !relative.hasSuffix("lock.mdb") {
            files[relative] = FileManager.default.contents(atPath: directory + "/" + relative) ?? Data("<directory>".utf8)
        }
        return files
    }

    @Test(arguments: Damage.allCases)
    func everyCommandRefusesADamagedStoreInOneLine(_ damage: Damage) throws {
        let dir = try TestDirectory()
        let good = dir.path("GOOD"), bad = dir.path("BAD")
        do {
            let store = try Store(path: good)
            try store.insert(["name": "Ada"], as: try RecordRef("person/ada"))
        }
        try damage.make(at: bad)
        let stream = dir.outputs.appendingPathComponent("stream")
        _ = try KVStoreExecutable.run(["journal", "export", good], in: dir, output: stream)
        let jsonl = dir.outputs.appendingPathComponent("in.jsonl")
        try Data(#"{"kind":"note","id":"1","values":{}}"#.utf8 + [10]).write(to: jsonl)
        let places = ["GOOD": good, "BAD": bad, "NEW": dir.path("NEW"), "STREAM": stream.path, "JSONL": jsonl.path]
        let before = Self.contents(of: dir.url.path)

        for command in Self.commands {
            let arguments = command.map { places[$0] ?? $0 }
            let result = try KVStoreExecutable.run(arguments, in: dir)
            let what = "\(damage): \(command.joined(separator: " "))"
            let expectedStatus: Int32 = command[0] == "verify" || command[0] == "diff" ? 2 : 1
            #expect(result.status == expectedStatus, "\(what): \(result)")
            #expect(result.stdout.isEmpty, "\(what): \(result)")
            #expect(result.stderr.hasPrefix("kvstore: ") && result.stderr.hasSuffix("\n")
                    && result.stderr.filter { $0 == "\n" }.count == 1, "\(what): one line: \(result)")
            #expect(result.stderr.contains("\(bad): \(damage.message)"), "\(what): \(result)")
            #expect(Self.contents(of: dir.url.path) == before, "\(what) changed files")
        }
    }
}

extension BadInputMatrixTests {
    static let longID = String(repeating: "x", count: 600)

    /// Bad input on standard input, or in the arguments, for a healthy store `STORE`
    /// (person/ada {"name":"Ada","age":36}); beyond the cases of ``ErrorTests`` and ``NewUserErrorTests``.
    static let inputCases: [(arguments: [String], input: String?, message: String)] = [
        (["load", "STORE", "-"], #"{"kind":"note"}"#, #"line 1: no "values"; nothing was loaded"#),
        (["load", "STORE", "-"], #"{"kind":"note","id":"1","values":[]}"#, #"line 1: "values" must be an object"#),
        (["load", "STORE", "-"], #"{"kind":"note","id":1,"values":{}}"#, #"line 1: "id" must be a string"#),
        (["load", "STORE", "-"], #"{"kind":"no te","id":"1","values":{}}"#, "line 1: invalid record reference 'no te'"),
        (["load", "STORE", "-"], #"{"kind":"note","id":"1","values":{"a.b":1}}"#, "line 1: invalid key path 'a.b'"),
        (["load", "STORE", "-"], #"{"kind":"note","id":"1","values":{"@count":1}}"#, "line 1: invalid key path '@count'"),
        (["load", "STORE", "-"], #"{"kind":"note","id":"1","values":{"a":"#, "line 1, column 39: unexpected end of input"),
        (["load", "STORE", "-"], #"{"kind":"note","id":"1","values":{"a":{"$nope":1}}}"#, "unknown tag '$nope'"),
        (["load", "STORE", "-"], #"{"kind":"note","id":"1","values":{},"extra":1}"#, "line 1: unexpected key 'extra'"),
        (["load", "STORE", "-"], #"{"kind":"note","id":"1","values":{}}"# + "\n" + #"{"kind":"note","id":"\#(longID)","values":{}}"#,
         "line 2: invalid record reference 'note/xxx"),
        (["load", "STORE", "-"], #"{"kind":"note","id":"1","values":{}}"# + "\n\u{FF}\n", "line 2"),
        (["load", "STORE", "-"], #"{"kind":"no\u0000te","id":"1","values":{}}"#, #"line 1: invalid record reference 'no\x00te'"#),
        (["load", "STORE", "-"], #"{"kind":"note","id":"a\u009b\u0007","values":{}}"#, #"invalid record reference 'note/a\u{9B}\x07'"#),
        (["get", "STORE", "note/\u{1B}[31mred"], nil, #"invalid record reference 'note/\x1B[31mred'"#),
        (["get", "STORE", "person/ada", "x.\u{1B}]0;title\u{7}."], nil, #"invalid key path 'x.\x1B]0;title\x07.'"#),
        // A bidirectional control would reorder the line on the terminal: escaped too.
        (["get", "STORE", "note/a\u{202E}b\u{2066}c"], nil, #"note/a\u{202E}b\u{2066}c: no such record"#),
        (["set", "STORE", "note/" + longID, "k", "1"], nil, "kind and id take 605 bytes, more than LMDB's key limit of 511"),
        (["get", "STORE", "note/" + longID], nil, "kind and id take 605 bytes"),
        (["rm", "STORE", "note/" + longID], nil, "kind and id take 605 bytes"),
        (["render", "STORE", "note/" + longID, "--text", "x"], nil, "kind and id take 605 bytes"),
        (["set", "STORE", "person/ada", "name.first.x", "1"], nil, "'name' is a string, not a dictionary or record"),
        (["set", "STORE", "person/ada", "age", #"{"$ref":"nokind"}"#], nil, "invalid VALUE"),
        (["set", "STORE", "person/ada", "age", #"{"$double":"many"}"#], nil, "invalid VALUE"),
        (["value", "STORE", "person", "@avg.name"], nil, "@avg"),
        (["journal", "list", "STORE", "--consumer", "nobody"], nil, "no consumer named 'nobody'"),
        (["journal", "truncate", "STORE", "--before", "99"], nil, "99"),
        (["journal", "consumers", "STORE", "--register", "has space"], nil, "has space"),
        (["replay", "STORE", "--into", "STORE"], nil, "STORE"),
        (["replicate", "STORE", "STORE"], nil, "a store cannot replicate itself"),
        (["promote", "STORE"], nil, "not a replica"),
    ]

    @Test(arguments: 0..<inputCases.count)
    func badInputIsOneLineAndChangesNothing(_ index: Int) throws {
        let (arguments, input, message) = Self.inputCases[index]
        let dir = try TestDirectory()
        let store = dir.path("STORE")
        do {  // made in this process (quicker than two commands), released before the command runs
            let made = try Store(path: store)
            try made.insert(["name": "Ada", "age": 36], as: try RecordRef("person/ada"))
        }
        let before = Self.contents(of: dir.url.path)
        try dir.fail(arguments.map { $0 == "STORE" ? store : $0 }, input: input, says: message)
        #expect(Self.contents(of: dir.url.path) == before)
    }

    /// `journal apply` from standard input with a damaged stream: one line, the replica unchanged.
    @Test func aDamagedStreamOnStandardInputChangesNothing() throws {
        let dir = try TestDirectory()
        let source = dir.path("source"), replica = dir.path("replica")
        for i in 1...3 { try dir.succeed("set", source, "note/\(i)", "n", "\(i)") }
        let streamFile = dir.outputs.appendingPathComponent("stream")
        _ = try KVStoreExecutable.run(["journal", "export", source], in: dir, output: streamFile)
        let bytes = [UInt8](try Data(contentsOf: streamFile))
        try dir.succeed("journal", "apply", replica, streamFile.path)
        try dir.succeed("set", source, "note/4", "n", "4")
        var offsets: [Int] = []
        var at = 10
        while at < bytes.count {
            offsets.append(at)
            at += 9 + Int(bytes[at]) + Int(bytes[at + 1]) << 8 + Int(bytes[at + 2]) << 16 + Int(bytes[at + 3]) << 24
        }
        func frame(_ i: Int) -> ArraySlice<UInt8> { bytes[offsets[i]..<(i + 1 < offsets.count ? offsets[i + 1] : bytes.count)] }
        var wrongMagic = bytes; wrongMagic[0] = UInt8(ascii: "X")
        var newer = bytes; newer[8] = 9
        var badCRC = bytes; badCRC[offsets[2] - 1] ^= 0xFF
        var huge = bytes; huge.replaceSubrange(offsets[1]..<offsets[1] + 4, with: [0xF0, 0xFF, 0xFF, 0x7F])
        let duplicate = Array(bytes[..<offsets[3]] + frame(1) + bytes[offsets[3]...])
        let cases: [(String, [UInt8], String)] = [
            ("wrong magic", wrongMagic, "not a kvstore journal stream"),
            ("newer version", newer, "the stream has format 9, newer than this kvstore reads"),
            ("bad CRC", badCRC, "fails its checksum"),
            ("truncated", Array(bytes.dropLast(7)), "cut short"),
            ("oversize frame", huge, "frame too large"),
            ("duplicate entry", duplicate, "frame 4"),
            ("empty", [], "journal stream"),
        ]
        let before = Self.contents(of: replica)
        for (name, variant, message) in cases {
            let file = dir.outputs.appendingPathComponent(name)
            try Data(variant).write(to: file)
            let result = try KVStoreExecutable.run(["journal", "apply", replica, "-"], in: dir, input: file)
            #expect(result.status == 1, "\(name): \(result)")
            #expect(result.stdout.isEmpty, "\(name): \(result)")
            #expect(result.stderr.hasPrefix("kvstore: ") && result.stderr.filter { $0 == "\n" }.count == 1, "\(name): \(result)")
            #expect(result.stderr.contains(message), "\(name): \(result)")
            #expect(Self.contents(of: replica) == before, "\(name)")
        }
    }
}
