import Foundation
import KVStore
import Testing

extension KVStoreExecutable {
    /// Runs `kvstore` with `arguments` given as bytes, which need not be UTF-8 (Foundation's
    /// `Process` takes strings only), standard input empty, its output captured in `directory`.
    /// It runs in the test process's working directory (the package): give absolute paths only.
    static func run(bytes arguments: [[UInt8]], in directory: TestDirectory) throws -> CommandResult {
        let executable = try #require(url, "the kvstore executable was not found next to the tests")
        let id = UUID().uuidString
        let outPath = directory.outputs.appendingPathComponent("\(id).out").path
        let errPath = directory.outputs.appendingPathComponent("\(id).err").path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let all = [Array(executable.path.utf8)] + arguments
        let argv: [UnsafeMutablePointer<CChar>?] = all.map { bytes in
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            for (i, byte) in bytes.enumerated() { copy[i] = CChar(bitPattern: byte) }
            copy[bytes.count] = 0
            return copy
        } + [nil]
        defer { argv.forEach { $0?.deallocate() } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable.path, &actions, nil, argv, environ)
        try #require(spawned == 0, "posix_spawn failed: \(spawned)")
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exited = status & 0x7F == 0
        return CommandResult(
            status: exited ? (status >> 8) & 0xFF : 128 + (status & 0x7F),
            stdout: try String(contentsOfFile: outPath, encoding: .utf8),
            stderr: try String(contentsOfFile: errPath, encoding: .utf8))
    }
}

extension BadInputMatrixTests {
    /// Every command's arguments are read as bytes before they are decoded: one that is not
    /// UTF-8 is refused in one line naming which argument it is (status 64, a mistake in the
    /// command line), instead of becoming U+FFFD — which made `a\xFFb` and `a\xFEb` one record.
    @Test func anArgumentThatIsNotUTF8IsRefusedNamingIt() throws {
        let dir = try TestDirectory()
        let store = dir.path("STORE")
        try dir.succeed("set", store, "person/ada", "name", #""Ada""#)
        let before = Self.contents(of: dir.url.path)
        let cases: [(arguments: [String], invalid: Int, shown: String)] = [
            (["set", "STORE", "note/a\u{FF}b", "n", "1"], 3, "note/a\\xFFb"),
            (["set", "STORE", "note/a\u{FE}b", "n", "1"], 3, "note/a\\xFEb"),
            (["set", "STORE", "note/1", "k\u{C3}", "1"], 4, "k\\xC3"),
            (["set", "STORE", "note/1", "n", "\"\u{80}\""], 5, "\"\\x80\""),
            (["get", "STORE", "person/\u{ED}\u{A0}\u{80}"], 3, "person/\\xED\\xA0\\x80"),
            (["rm", "STORE", "person/ada", "n\u{F8}"], 4, "n\\xF8"),
            (["dump", "STORE", "--kind", "p\u{FF}"], 4, "p\\xFF"),
            (["render", "STORE", "person/ada", "--text", "\u{FF}[[name]]"], 5, "\\xFF[[name]]"),
            (["load", "STORE/../new\u{FF}"], 2, "\(store)/../new\\xFF"),
            (["journal", "consumers", "STORE", "--register", "x\u{FF}"], 5, "x\\xFF"),
        ]
        for (arguments, invalid, shown) in cases {
            // Each scalar U+0080…U+00FF in a case stands for the byte of that value.
            let bytes = arguments.map { argument in
                argument.replacingOccurrences(of: "STORE", with: store).unicodeScalars.flatMap { scalar -> [UInt8] in
                    scalar.value >= 0x80 && scalar.value <= 0xFF ? [UInt8(scalar.value)] : Array(String(scalar).utf8)
                }
            }
            let result = try KVStoreExecutable.run(bytes: bytes, in: dir)
            let what = arguments.joined(separator: " ")
            #expect(result.status == 64, "\(what): \(result)")
            #expect(result.stdout.isEmpty, "\(what): \(result)")
            #expect(result.stderr.hasPrefix("kvstore: ") && result.stderr.filter { $0 == "\n" }.count == 1, "\(what): \(result)")
            #expect(result.stderr.contains("argument \(invalid) is not valid UTF-8: '\(shown)'"), "\(what): \(result)")
            #expect(Self.contents(of: dir.url.path) == before, "\(what) changed files")
        }
        #expect(try dir.succeed("dump", store).lines.count == 1)
    }
}

extension BadInputMatrixTests {
    /// A negative number given to a numeric option is one line naming the option and its rule
    /// (status 64), not "Missing value for '--limit <n>'" (ArgumentParser took `-5` for an option).
    @Test(arguments: [
        (["journal", "list", "STORE", "--limit", "-5"], "--limit must be 0 or more, not -5 (see 'kvstore journal list --help')"),
        (["journal", "list", "STORE", "--since", "-5"], "--since must be 0 or more, not -5 (see 'kvstore journal list --help')"),
        (["journal", "export", "STORE", "--since", "-1"], "--since must be 0 or more, not -1 (see 'kvstore journal export --help')"),
        (["load", "STORE", "in.jsonl", "--batch", "-2"], "--batch must be 1 or more, not -2 (see 'kvstore load --help')"),
        (["journal", "truncate", "STORE", "--before", "-1"], "--before must be 0 or more, not -1 (see 'kvstore journal truncate --help')"),
        (["replay", "STORE", "--into", "NEW", "--until", "-3"], "--until must be 0 or more, not -3 (see 'kvstore replay --help')"),
        (["journal", "list", "STORE", "--limit", "-5", "--since", "-2"], "must be 0 or more, not -"),
    ])
    func aNegativeOptionValueNamesTheOptionAndItsRule(_ arguments: [String], _ message: String) throws {
        let dir = try TestDirectory()
        let store = dir.path("STORE")
        try dir.succeed("set", store, "person/ada", "name", #""Ada""#)
        let before = Self.contents(of: dir.url.path)
        let result = try KVStoreExecutable.run(arguments.map { ["STORE": store, "NEW": dir.path("NEW")][$0] ?? $0 }, in: dir)
        #expect(result.status == 64, "\(result)")
        #expect(result.stdout.isEmpty && result.stderr.filter { $0 == "\n" }.count == 1, "\(result)")
        #expect(result.stderr.hasPrefix("kvstore: --") && result.stderr.contains(message), "\(result)")
        #expect(Self.contents(of: dir.url.path) == before)
    }
}
