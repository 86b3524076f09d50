import Foundation
import Synchronization
import Testing
import TestSupport
@testable import KVStore

/// `Store.kindChanges(_:carrying:)` sees the commits of another process — the `kvstore` tool —
/// woken by the store's file changing, with the carried keys read in its own read transaction and
/// a deleted record's taken from the journal's old values.
@Suite(.tags(.subprocess), .skippedByTag) struct KindChangeProcessTests {
    @Test func anotherProcessesCommitsReachTheSequence() async throws {
        let dir = try TestDirectory()
        let path = dir.path("store")
        try dir.succeed("set", path, "item/a", "feed", "\"f1\"")
        let store = try Store(path: path)
        let watcher = CommitWatcher.shared(for: store)
        let received = Mutex<[KindChanges]>([])
        let task = Task {
            for try await changes in store.kindChanges("item", carrying: ["feed"]) {
                received.withLock { $0.append(changes) }
                if changes.deleted.contains("a") { break }
            }
        }
        let deadline = Date().addingTimeInterval(60)  // only keeps a broken test from hanging
        while watcher.subscriberCount == 0 || store.observation.observerCount.load(ordering: .relaxed) == 0, Date() < deadline {
            try await Task.sleep(for: .milliseconds(2))
        }
        let wakeups = watcher.wakeups.load(ordering: .relaxed)
        try dir.succeed("set", path, "item/b", "feed", "\"f2\"")
        try dir.succeed("set", path, "item/a", "feed", "\"f3\"")
        try dir.succeed("rm", path, "item/a")
        try await task.value
        let all = received.withLock { $0 }
        #expect(watcher.wakeups.load(ordering: .relaxed) > wakeups)
        #expect(all.flatMap(\.inserted) == ["b"])
        #expect(all.flatMap(\.deleted) == ["a"])
        var values: [String: [String: Value]] = [:]
        for changes in all { values.merge(changes.values) { $1 } }
        #expect(values["b"] == ["feed": "f2"])
        #expect(values["a"] == ["feed": "f3"])  // its values before the deletion
    }
}
