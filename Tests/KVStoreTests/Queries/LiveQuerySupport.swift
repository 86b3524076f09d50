import Foundation
import Synchronization
@testable import KVStore
import TestSupport

/// The change sets a live query delivered, collected from its thread.
final class LiveChanges: Sendable {
    private let changes = Mutex<[LiveQueryChange]>([])

    var all: [LiveQueryChange] { changes.withLock { $0 } }

    func add(_ change: LiveQueryChange) { changes.withLock { $0.append(change) } }

    /// Waits (generously) until `count` changes arrived; the changes then.
    @discardableResult
    func wait(for count: Int) -> [LiveQueryChange] {
        _ = waitUntil { all.count >= count }
        return all
    }

    /// Whether no change beyond the first `count` arrives within a moment (for "nothing is
    /// delivered" checks: a delivery would come within a few polls).
    func staysAt(_ count: Int) -> Bool {
        Thread.sleep(forTimeInterval: 0.3)
        return all.count == count
    }
}

/// Fast polling for tests: a commit is seen within a millisecond or two.
let livePolling: JournalFollowOptions = {
    var options = JournalFollowOptions()
    options.pollInterval = .microseconds(200) ... .milliseconds(2)
    return options
}()

extension Store {
    /// Observes `query`, collecting the change sets.
    func observeCollecting(_ query: RecordQuery, options: JournalFollowOptions = livePolling) throws -> (ObservationToken, LiveChanges) {
        let changes = LiveChanges()
        let token = try observe(query, options: options) { changes.add($0) }
        return (token, changes)
    }
}

extension LiveQueryChange {
    /// The change lists in one comparable value: (deleted, inserted, updated, moved as pairs).
    var lists: [[Int]] { [deleted, inserted, updated, moved.flatMap { [$0.from, $0.to] }] }
}
