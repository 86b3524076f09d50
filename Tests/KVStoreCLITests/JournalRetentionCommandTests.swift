import Foundation
import KVStore
import Testing
import TestSupport

/// `journal truncate` and `journal consumers`, and the errors a user can hit with them.
@Suite(.tags(.subprocess), .skippedByTag) struct JournalRetentionCommandTests {
    let dir: TestDirectory
    let store: String

    /// Five entries.
    init() throws {
        dir = try TestDirectory()
        store = dir.path("store")
        try dir.commitCounter(1...5, to: store)
    }

    private func sequences() throws -> [Value?] {
        try dir.succeed("journal", "list", store).objects().map { $0["sequence"] }
    }

    /// The journal and the consumers, to prove failed commands changed nothing (they never touch records).
    private func state() throws -> String {
        let journal = try KVStoreExecutable.run(["journal", "list", store], in: dir)
        let consumers = try KVStoreExecutable.run(["journal", "consumers", store], in: dir)
        return "\(journal)\n\(consumers)"
    }

    /// Expects `arguments` to fail with one line on stderr containing `message`. (Callers compare
    /// ``state()`` around their failures.)
    private func fails(_ arguments: String..., status: Int32 = 1, with message: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try KVStoreExecutable.run(arguments, in: dir)
        #expect(result.status == status, "\(arguments): \(result)", sourceLocation: sourceLocation)
        #expect(result.stdout.isEmpty, "\(arguments): \(result)", sourceLocation: sourceLocation)
        #expect(result.stderr.hasPrefix("kvstore: ") && result.stderr.contains(message), "\(arguments): \(result)", sourceLocation: sourceLocation)
        #expect(result.stderr.filter { $0 == "\n" }.count == 1, "\(arguments): \(result)", sourceLocation: sourceLocation)
    }

    @Test func truncateDeletesOlderEntriesAndSaysWhatIsLeft() throws {
        let result = try dir.succeed("journal", "truncate", store, "--before", "3")
        #expect(try result.objects() == [["removed": 2, "first": 3, "last": 5]])
        #expect(try sequences() == [3, 4, 5])
        #expect(try dir.succeed("journal", "truncate", store, "--before", "6").objects() == [["removed": 3, "first": .null, "last": 5]])
        try dir.commitCounter(6...6, to: store)
        #expect(try sequences() == [6])
    }

    /// `--since` a sequence the journal was truncated past is an error naming the first sequence
    /// held, for `list` (plain and following) and `export` — never a listing or stream that
    /// silently starts later with status 0. Without `--since` they start at the first entry held.
    @Test func sinceATruncatedSequenceIsRefusedNamingTheFirstHeld() throws {
        try dir.succeed("journal", "truncate", store, "--before", "4")
        for since in ["0", "1", "3"] {
            let message = "--since \(since): the journal was truncated past it; the first entry it holds is 4"
            try fails("journal", "list", store, "--since", since, with: message)
            try fails("journal", "list", store, "--since", since, "--follow", with: message)
            try fails("journal", "list", store, "--since", since, "--format", "table", with: message)
            let export = try dir.kvstore(["journal", "export", store, "--since", since], output: "stream")
            #expect(export.status == 1 && export.stderr == "kvstore: \(message) (entries \(max(Int(since)!, 1))…3 are gone)\n", "\(export)")
        }
        #expect(try sequences() == [4, 5])
        #expect(try dir.succeed("journal", "list", store, "--since", "4").lines.count == 2)
        #expect(try dir.kvstore(["journal", "export", store, "--since", "5"], output: "stream").status == 0)
        #expect(try dir.kvstore(["journal", "export", store], output: "stream").status == 0)
        // Truncated through the last entry: the first held is the next one to be made.
        try dir.succeed("journal", "truncate", store, "--before", "6")
        try fails("journal", "list", store, "--since", "5", with: "the first entry it holds is 6")
        #expect(try dir.succeed("journal", "list", store, "--since", "6").stdout.isEmpty)
    }

    @Test func aConsumerBlocksTruncationUnlessForced() throws {
        try dir.succeed("journal", "consumers", store, "--register", "indexer", "--after", "2")
        let before = try state()
        try fails("journal", "truncate", store, "--before", "5", with: "consumer 'indexer' has not processed: its cursor is at 2")
        #expect(try state() == before)
        try dir.succeed("journal", "truncate", store, "--before", "3")
        try dir.succeed("journal", "truncate", store, "--before", "5", "--force")
        #expect(try sequences() == [5])
        let consumers = try dir.succeed("journal", "consumers", store, "--format", "table").lines
        #expect(consumers.map { $0.split(separator: " ").map(String.init) } == [["NAME", "CURSOR", "LAG", "EXPIRED"], ["indexer", "2", "3", "yes"]])
        let truncated = try state()
        try fails("journal", "list", store, "--consumer", "indexer", with: "cursor expired: consumer 'indexer' has read through sequence 2")
        try fails("journal", "list", store, "--consumer", "indexer", "--follow", with: "cursor expired")
        #expect(try state() == truncated)
    }

    @Test func consumersAreRegisteredListedAndUnregistered() throws {
        try dir.succeed("journal", "consumers", store, "--register", "b")
        let listed = try dir.succeed("journal", "consumers", store, "--register", "a", "--after", "0").objects()
        #expect(listed == [["name": "a", "cursor": 0, "lag": 5, "expired": false], ["name": "b", "cursor": 5, "lag": 0, "expired": false]])
        #expect(try dir.succeed("journal", "consumers", store, "--unregister", "a").objects().map { $0["name"] } == ["b"])
        try dir.succeed("journal", "consumers", store, "--unregister", "b")
        #expect(try dir.succeed("journal", "consumers", store).lines.isEmpty)
        #expect(try dir.succeed("journal", "consumers", store, "--format", "table").lines == ["NAME  CURSOR  LAG  EXPIRED"])
    }

    @Test func mistakesAreOneLineAndChangeNothing() throws {
        try dir.succeed("journal", "consumers", store, "--register", "indexer", "--after", "1")
        let before = try state()
        try fails("journal", "truncate", store, "--before", "7", with: "its last sequence is 5")
        try fails("journal", "list", store, "--consumer", "nobody", with: "no consumer named 'nobody' is registered")
        try fails("journal", "list", store, "--consumer", "nobody", "--follow", with: "no consumer named 'nobody'")
        try fails("journal", "consumers", store, "--unregister", "nobody", with: "no consumer named 'nobody'")
        try fails("journal", "consumers", store, "--register", "indexer", with: "already registered (at sequence 1)")
        try fails("journal", "consumers", store, "--register", "has space", with: "invalid consumer name 'has space'")
        try fails("journal", "consumers", store, "--register", "late", "--after", "9", with: "the journal's last sequence is 5")
        try fails("journal", "list", store, "--consumer", "indexer", "--since", "2", status: 64, with: "--since and --consumer cannot be combined")
        try fails("journal", "consumers", store, "--after", "2", status: 64, with: "--after needs --register")
        try fails("journal", "truncate", store, status: 64, with: "--before")
        try fails("journal", "truncate", store, "--before", "-1", status: 64, with: "--before")
        for missing in [["journal", "truncate", dir.path("nothing"), "--before", "1"], ["journal", "consumers", dir.path("nothing")],
                        ["journal", "list", dir.path("nothing"), "--follow"]] {
            let result = try KVStoreExecutable.run(missing, in: dir)
            #expect(result.status == 1 && result.stderr.hasPrefix("kvstore: ") && result.stdout.isEmpty, "\(missing): \(result)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.path("nothing")))
        #expect(try state() == before)
    }
}
