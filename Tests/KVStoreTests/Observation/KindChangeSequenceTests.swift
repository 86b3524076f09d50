import Foundation
import Testing
import TestSupport
@testable import KVStore

/// `store.kindChanges(_:carrying:)`: an async sequence of a kind's changes, woken by commits,
/// carrying chosen keys, and leaving nothing behind when it ends.
/// (Another process's commits: `KindChangeProcessTests` in the CLI tests, which spawn the tool.)
@Suite struct KindChangeSequenceTests {
    /// Commits in this process reach the sequence, in commit order, each id once.
    @Test func commitsOfThisProcessWakeTheSequence() async throws {
        let t = try TemporaryStore()
        let store = t.store
        let received = Received<KindChanges>()
        let task = Task {
            for try await changes in store.kindChanges("item") {
                received.add(changes)
                if received.all.flatMap(\.inserted).count >= 3 { break }
            }
        }
        await store.untilKindChangesObserved(1)
        for i in 0..<3 {
            try await store.write { txn in
                try txn.insert([:], as: ref("item/\(i)"))
                try txn.insert([:], as: ref("other/\(i)"))
            }
        }
        try await task.value
        #expect(received.all.flatMap(\.inserted).sorted() == ["0", "1", "2"])
        #expect(received.all.map(\.commitID) == received.all.map(\.commitID).sorted())
        #expect(received.all.allSatisfy { $0.kind == "item" && $0.deleted.isEmpty && $0.values.isEmpty })
    }

    /// Each change carries the chosen key paths' values: after the commit for inserted and
    /// modified records, before it (from the journal) for deleted ones; a key path with no value
    /// is left out.
    @Test func changesCarryTheChosenKeys() async throws {
        let t = try TemporaryStore()
        let store = t.store
        try store.insert(["feed": "f1", "title": "A"], as: ref("item/a"))
        try store.insert(["feed": "f2", "about": ["lang": "en"]], as: ref("item/b"))
        let received = Received<KindChanges>()
        let task = Task {
            for try await changes in store.kindChanges("item", carrying: ["feed", "about.lang", "missing"]) {
                received.add(changes)
                let ids = received.all.flatMap { $0.inserted.union($0.modified).union($0.deleted) }
                if Set(ids).isSuperset(of: ["a", "b", "c"]) { break }
            }
        }
        await store.untilKindChangesObserved(1)
        try store.insert(["feed": "f3"], as: ref("item/c"))
        try store.setValue("f9", forKey: "feed", of: ref("item/a"))
        try store.delete(ref("item/b"))
        try await task.value
        var values: [String: [String: Value]] = [:]
        for changes in received.all { values.merge(changes.values) { $1 } }
        #expect(values["c"] == ["feed": "f3"])
        #expect(values["a"] == ["feed": "f9"])
        #expect(values["b"] == ["feed": "f2", "about.lang": "en"])
        #expect(Set(received.all.flatMap(\.deleted)) == ["b"])
    }

    /// A task cancelled before the sequence started ends it with nil too, as after it started
    /// (it threw `CancellationError` from the start).
    @Test func aTaskCancelledBeforeTheStartEndsTheSequence() async throws {
        let t = try TemporaryStore()
        let store = t.store
        let task = Task {
            while !Task.isCancelled { await Task.yield() }
            for try await _ in store.kindChanges("item") {}
            return "ended"
        }
        task.cancel()
        #expect(try await task.value == "ended")
        #expect(store.observation.observerCount.load(ordering: .relaxed) == 0)
        #expect(CommitWatcher.shared(for: store).subscriberCount == 0)
    }

    /// Cancelling the iterating task ends the sequence with nil and removes its observer and its
    /// file watch; so does leaving the loop.
    @Test func endingTheIterationRemovesTheObserver() async throws {
        let t = try TemporaryStore()
        let store = t.store
        let watcher = CommitWatcher.shared(for: store)
        let cancelled = Task {
            for try await _ in store.kindChanges("item") {}
            return "ended"
        }
        await store.untilKindChangesObserved(1)
        #expect(watcher.subscriberCount == 1)
        cancelled.cancel()
        #expect(try await cancelled.value == "ended")
        #expect(store.observation.observerCount.load(ordering: .relaxed) == 0)
        #expect(watcher.subscriberCount == 0)

        let left = Task {
            for try await changes in store.kindChanges("item") { return changes.inserted }
            return []
        }
        await store.untilKindChangesObserved(1)
        try store.insert([:], as: ref("item/x"))
        #expect(try await left.value == ["x"])
        // Released with the iterator, which a store thread may hold a moment longer.
        await eventually { store.observation.observerCount.load(ordering: .relaxed) == 0 && watcher.subscriberCount == 0 }
        #expect(store.observation.observerCount.load(ordering: .relaxed) == 0)
        #expect(watcher.subscriberCount == 0)
    }

    /// An invalid kind name fails the iteration, leaving nothing behind.
    @Test func anInvalidKindFailsTheIteration() async throws {
        let t = try TemporaryStore()
        let store = t.store
        await #expect(throws: RecordRefError.self) {
            for try await _ in store.kindChanges("no/slash") {}
        }
        #expect(store.observation.observerCount.load(ordering: .relaxed) == 0)
        #expect(CommitWatcher.shared(for: store).subscriberCount == 0)
    }
}

extension Store {
    /// Waits until `count` observers watch this store (a kind change sequence has started).
    func untilKindChangesObserved(_ count: Int) async {
        await eventually { observation.observerCount.load(ordering: .relaxed) >= count }
    }
}
