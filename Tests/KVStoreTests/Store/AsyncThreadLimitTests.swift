import Foundation
import Synchronization
import Testing
import TestSupport
@testable import KVStore

/// The async reads and writes run on at most 8 reader and 8 writer threads per environment, as
/// `StoreThreads` promises, however many tasks call at once.
@Suite struct AsyncThreadLimitTests {
    final class Counts: Sendable {
        let running = Atomic<Int>(0)
        let most = Atomic<Int>(0)
    }

    /// 24 async reads at once, each holding its thread until more than 8 run together (or 0.3 s
    /// passed): never more than 8 run at the same time.
    @Test func concurrentAsyncReadsRunOnAtMostEightThreads() async throws {
        let t = try TemporaryStore()
        let store = t.store
        let counts = Counts()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<24 {
                group.addTask {
                    try await store.read { _ in
                        let now = counts.running.add(1, ordering: .sequentiallyConsistent).newValue
                        _ = counts.most.max(now, ordering: .sequentiallyConsistent)
                        let end = Date().addingTimeInterval(0.3)
                        while counts.running.load(ordering: .sequentiallyConsistent) <= 8, Date() < end {
                            usleep(1000)
                        }
                        counts.running.subtract(1, ordering: .sequentiallyConsistent)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(counts.most.load(ordering: .sequentiallyConsistent) <= 8)
    }
}
