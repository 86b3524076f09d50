#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One writer's part of a group commit (`Environment.write(_: GroupedWrite)`): its body, and
/// what to do as the group's transaction goes. Made by the writer; run — on whichever thread leads
/// its group — while the writer waits.
///
/// The closures may capture the writer's non-escaping state (they run only while the writer waits,
/// and the write drops them before it returns to the writer: ``dropClosures()``), so the type is
/// `@unchecked Sendable`: the queue's lock orders the leader's work before the writer's return.
package final class GroupedWrite: @unchecked Sendable {
    package typealias Body = (Transaction) throws -> Void

    /// Runs the write's body in its transaction: a nested transaction of the group's, or the
    /// group's own when the write runs alone. May run more than once (the map grew).
    private(set) var body: Body
    /// The body's changes are in the transaction that will commit: its nested transaction merged
    /// into the group's (called right after), or the write ran alone and committed (called then).
    private(set) var merged: () -> Void
    /// The group's transaction was aborted after ``merged``: it runs again or fails.
    private(set) var discarded: () -> Void
    /// The group's transaction committed; called in the group's order, with the write lock held.
    private(set) var committed: () -> Void
    /// Why the write did not commit (its body's error, or the transaction's), or nil once it
    /// committed. Set by the thread that led the group; read by the writer after the write.
    package internal(set) var error: (any Error)?
    /// Its nested commit failed and may have broken the group's transaction: the group runs again
    /// without it, and it keeps its ``error``. Used by the leading thread only.
    var isLeftOut = false

    enum State { case waiting, leading, done }
    /// Guarded by the ``CommitQueue``'s lock, as is ``group``; a change is signalled on ``wakeup``
    /// (one condition per write, so that a release wakes only the writers it concerns).
    var state = State.waiting
    let wakeup = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// The writes this one leads once its state is ``State/leading`` (itself first).
    var group: [GroupedWrite] = []

    package init(
        body: @escaping Body, merged: @escaping () -> Void, discarded: @escaping () -> Void,
        committed: @escaping () -> Void
    ) {
        self.body = body
        self.merged = merged
        self.discarded = discarded
        self.committed = committed
        wakeup.initialize(to: pthread_cond_t())
        pthread_cond_init(wakeup, nil)
    }

    deinit {
        pthread_cond_destroy(wakeup)
        wakeup.deallocate()
    }

    /// Releases the closures (and what they capture) once the write is over, on the writer's
    /// thread: the leader may hold the object a little longer, but never calls them again.
    package func dropClosures() {
        body = { _ in }
        merged = {}
        discarded = {}
        committed = {}
    }
}
