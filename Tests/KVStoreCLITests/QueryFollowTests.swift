import Foundation
import KVStore
import Testing
import TestSupport

/// `query … --follow` and the library's live queries seeing other processes' writes: the results,
/// then one jsonl line per commit that changes them, ended cleanly by SIGINT or SIGTERM.
@Suite(.tags(.subprocess), .skippedByTag) struct QueryFollowTests {
    let dir: TestDirectory
    let store: String

    init() throws {
        dir = try TestDirectory()
        store = dir.path("store")
        let records = [
            #"{"kind":"item","id":"1","values":{"title":"apple","read":false}}"#,
            #"{"kind":"item","id":"2","values":{"title":"Banana","read":true}}"#,
            #"{"kind":"item","id":"3","values":{"title":"cherry","read":false}}"#,
            #"{"kind":"item","id":"4","values":{"title":"Apple","read":false}}"#,
        ]
        try dir.kvstore(["load", store], input: records.joined(separator: "\n"))
    }

    /// The store's last commit.
    private func lastCommit() throws -> Value {
        .int(Int64(try Store(path: store).statistics().journal.lastCommit))
    }

    @Test func followPrintsTheResultsThenOneLinePerChange() throws {
        let query = ["query", store, "item", "read == NO", "--sort", "title"]
        let initial = try dir.succeed(query).lines
        let follower = try BackgroundCommand(query + ["--follow"], in: dir)
        #expect(follower.waitForLines(3) == initial)
        try dir.succeed("set", store, "item/2", "read", "false")
        let entered = follower.waitForLines(4)
        try dir.succeed("set", store, "item/3", "title", #""Aardvark""#)
        follower.waitForLines(5)  // else both commits may share one line
        try dir.succeed("set", store, "item/4", "read", "true")
        let lines = follower.waitForLines(6)
        #expect(follower.stop(signal: SIGINT) == 0, "SIGINT ends following cleanly")
        #expect(follower.stderr.isEmpty)
        let changes = try lines.dropFirst(3).map { try TypedJSON.dictionary(from: $0) }
        #expect(entered.count == 4 && lines.count == 6)
        guard changes.count == 3 else { return }
        #expect(changes[0]["inserted"] == ["2"] && changes[0]["deleted"] == [] && changes[0]["moved"] == [])
        #expect(changes[1]["moved"] == [[3, 0]] && changes[1]["inserted"] == [] && changes[1]["updated"] == [])
        #expect(changes[2]["deleted"] == ["4"])
        #expect(changes[2]["commit"] == (try lastCommit()))
        #expect(lines[3].hasPrefix(#"{"commit":"#) && lines[3].hasSuffix(#","inserted":["2"],"deleted":[],"updated":[],"moved":[]}"#))
    }

    @Test func sigtermEndsFollowingWithStatusZero() throws {
        let follower = try BackgroundCommand(["query", store, "item", "--follow", "--limit", "1"], in: dir)
        #expect(follower.waitForLines(1).count == 1)
        #expect(follower.stop() == 0)
        #expect(!follower.endedBySignal)
        #expect(follower.stderr.isEmpty)
    }

    @Test func theLibrarysLiveQuerySeesWritesOfOtherProcesses() throws {
        let opened = try Store(path: store)
        let seen = Failures()
        var options = JournalFollowOptions()
        options.pollInterval = .milliseconds(1) ... .milliseconds(2)
        let query = RecordQuery(kind: "item", where: try KeyPathPredicate("read == NO"), sortedBy: [try KeyPathSort(parsing: "title")])
        let token = try opened.observe(query, options: options) { seen.add($0.ids.joined(separator: " ")) }
        defer { token.cancel() }
        #expect(waitUntil { seen.all.count >= 1 })
        try dir.succeed("set", store, "item/2", "read", "false")
        #expect(waitUntil { seen.all.count >= 2 })
        #expect(seen.all == ["4 1 3", "4 2 1 3"])
    }

    @Test func followRefusesExplainAndBadInputInOneLine() throws {
        let result = try KVStoreExecutable.run(["query", store, "item", "--follow", "--explain"], in: dir)
        #expect(result.status == 64 && result.stdout.isEmpty && result.stderr.contains("--follow and --explain cannot be combined"))
        try dir.fail(["query", store, "item", "read ==", "--follow"], says: "invalid predicate")
    }
}
