import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The writers of one environment in this process that wait for their turn, so that they commit
/// together: group commit.
///
/// A write that finds the queue free claims it (``claimIfFree()``) and runs alone, as it would
/// without the queue. Writes arriving while a write runs queue up as ``GroupedWrite``s; when the
/// running write ends (``release(after:)``), the first one queued leads every one queued then: it
/// runs their bodies in one LMDB write transaction, each in a nested transaction of its own,
/// commits once (one sync for all), and wakes them. Writes arriving meanwhile queue for the next
/// group.
package final class CommitQueue: @unchecked Sendable {
    /// Counts of the write transactions that held more than one write.
    package struct Statistics: Sendable, Equatable {
        /// Write transactions that ran two writes or more.
        package var groups = 0
        /// The writes they ran.
        package var groupedWrites = 0
        /// The most writes one transaction ran.
        package var largestGroup = 0

        package init(groups: Int = 0, groupedWrites: Int = 0, largestGroup: Int = 0) {
            self.groups = groups
            self.groupedWrites = groupedWrites
            self.largestGroup = largestGroup
        }
    }

    /// Whether a write runs, and whether writes wait: one atomic, so that a write that finds the
    /// queue free claims and releases it without the lock. Waiting writes change it under the lock.
    private let state = Atomic<Int>(State.free)
    private enum State {
        static let free = 0
        /// A write runs (alone or leading a group); none waits.
        static let running = 1
        /// A write runs and others wait: its release must take the lock and hand the queue on.
        static let waited = 2
    }
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    // Guarded by `mutex`:
    private var waiting: [GroupedWrite] = []
    private var counts = Statistics()

    init() {
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Claims the queue for a write that runs alone when no write runs or waits; the caller then
    /// must ``release(after:)`` it.
    /// - Returns: false, claiming nothing, when a write runs.
    package func claimIfFree() -> Bool {
        state.compareExchange(expected: State.free, desired: State.running, ordering: .acquiring).exchanged
    }

    /// Queues `writes` (one or more, kept together: they run in one group) behind the running
    /// write and waits.
    /// - Returns: the group for the caller to run and then ``release(after:)`` (`writes[0]` first) —
    ///   right away, `writes` alone, when the queue is free — or nil once another thread ran
    ///   `writes` in its group.
    func join(_ writes: [GroupedWrite]) -> [GroupedWrite]? {
        let write = writes[0]
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while true {
            let current = state.load(ordering: .acquiring)
            if current == State.free {
                if state.compareExchange(expected: current, desired: State.running, ordering: .acquiring).exchanged { return writes }
            } else if current == State.waited
                || state.compareExchange(expected: current, desired: State.waited, ordering: .relaxed).exchanged {
                break
            }
        }
        waiting.append(contentsOf: writes)
        while true {
            switch write.state {
            case .waiting:
                pthread_cond_wait(write.wakeup, mutex)
            case .leading:
                let group = write.group
                write.group = []
                return group
            case .done:
                return nil
            }
        }
    }

    /// Ends the running write: ``handOn()``, then ``wake(_:)`` the other writes of `group` (the
    /// caller's is first).
    package func release(after group: [GroupedWrite] = []) {
        handOn()
        wake(group)
    }

    /// Hands the queue to the first write waiting, to lead all those waiting, or frees it. The
    /// running write's group may still wait for ``wake(_:)`` (while its commit is made durable).
    func handOn() {
        if state.compareExchange(expected: State.running, desired: State.free, ordering: .releasing).exchanged { return }
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        // Under the lock no write joins meanwhile: `waiting` and the state agree.
        if let next = waiting.first {
            next.group = waiting
            next.state = .leading
            pthread_cond_signal(next.wakeup)
            waiting = []
            state.store(State.running, ordering: .releasing)
        } else {
            state.store(State.free, ordering: .releasing)
        }
    }

    /// Wakes the writes of a group that ran (all but the first, the caller's): their write is over.
    func wake(_ group: [GroupedWrite]) {
        guard group.count > 1 else { return }
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        for write in group.dropFirst() {
            write.state = .done
            pthread_cond_signal(write.wakeup)
        }
        counts.groups += 1
        counts.groupedWrites += group.count
        counts.largestGroup = max(counts.largestGroup, group.count)
    }

    /// The writes waiting for their turn (tests wait on it to make a group).
    package var queued: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return waiting.count
    }

    /// How many writes ran together so far.
    package var statistics: Statistics {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return counts
    }
}
