import Foundation
@testable import KVStore

extension Store {
    /// Runs each of `writers` on a thread of its own while a write on this thread holds the store
    /// until every one of them is queued, so that they all commit in one group (in the order they
    /// queued); returns once all have finished. Each writer calls `write` once.
    func inOneGroup(_ writers: [@Sendable () -> Void]) throws {
        let finished = DispatchSemaphore(value: 0)
        try write { _ in
            for writer in writers {
                Thread {
                    writer()
                    finished.signal()
                }.start()
            }
            // (The deadline only keeps a broken queue from hanging the test: it then fails on
            // what the group should have done.)
            let deadline = Date().addingTimeInterval(60)
            while environment.commitQueue.queued < writers.count && Date() < deadline { usleep(100) }
        }
        for _ in writers { finished.wait() }
    }

    /// `threads` threads each running `body(thread)`; returns once all have finished.
    static func onThreads(_ threads: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let finished = DispatchSemaphore(value: 0)
        for thread in 0..<threads {
            Thread {
                body(thread)
                finished.signal()
            }.start()
        }
        for _ in 0..<threads { finished.wait() }
    }

    /// The commit ids of the journal's runs of entries, in journal order: each commit id once
    /// when every commit's entries are contiguous.
    func journalCommitRuns() throws -> [UInt64] {
        var runs: [UInt64] = []
        for entry in try journalEntries() where runs.last != entry.commitID { runs.append(entry.commitID) }
        return runs
    }
}

extension TemporaryStore {
    /// A store whose map starts at 64 KiB, so that a few writes make it grow (no syncs: the point
    /// is growth).
    static func smallMap() throws -> TemporaryStore {
        var options = Store.Options.testing
        options.mapSize = 64 << 10
        return try TemporaryStore(options: options)
    }
}
