import Foundation
import Testing
import TestSupport
@testable import KVStore

/// What wakes followers: every commit changes `data.mdb`, whatever the durability, and an idle
/// follower barely polls.
@Suite struct CommitWatcherTests {
    /// Each commit wakes the watcher's subscribers — with `.noSync` too, where LMDB skips the
    /// syncs but still writes the pages and the meta page to the file.
    @Test(arguments: [Durability.full, .noMetaSync, .noSync])
    func everyCommitWakesTheWatcher(durability: Durability) throws {
        var options = Store.Options()
        options.durability = durability
        let t = try TemporaryStore(options: options)
        let watcher = CommitWatcher.shared(for: t.store)
        let woken = Received<Int>()
        let subscription = try #require(watcher.subscribe { woken.add(1) })
        defer { watcher.unsubscribe(subscription) }
        for i in 0..<5 {
            let before = woken.count
            try t.store.insert([:], as: ref("item/\(i)"))
            #expect(waitUntil { woken.count > before }, "commit \(i) under \(durability.rawValue)")
        }
    }

    /// A follower with nothing to follow sleeps until a commit: over an idle half second it looks
    /// for entries a few times (backing off to one second), not every few milliseconds (which
    /// would be 100 times or more), and the watch sees no event.
    @Test func anIdleFollowerBarelyPolls() throws {
        let t = try TemporaryStore()
        let follower = JournalFollower(store: t.store, after: 0)
        let watcher = CommitWatcher.shared(for: t.store)
        let done = DispatchSemaphore(value: 0)
        Thread {
            try? follower.run { _ in }
            done.signal()
        }.start()
        waitUntil { watcher.subscriberCount == 1 && follower.polls.load(ordering: .relaxed) > 0 }
        let (polls, wakeups) = (follower.polls.load(ordering: .relaxed), watcher.wakeups.load(ordering: .relaxed))
        Thread.sleep(forTimeInterval: 0.5)
        let idlePolls = follower.polls.load(ordering: .relaxed) - polls
        #expect(idlePolls <= 12, "\(idlePolls) polls while idle")
        #expect(watcher.wakeups.load(ordering: .relaxed) == wakeups)
        follower.stop()
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(watcher.subscriberCount == 0)
    }
}
