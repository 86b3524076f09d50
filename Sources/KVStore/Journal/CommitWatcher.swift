import Foundation
import LMDB
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Wakes followers of one environment when a commit may have happened, in this or another process,
/// without polling: an `inotify` watch on the store's `data.mdb`, which LMDB (the store does not use
/// `MDB_WRITEMAP`) writes with `pwrite` at every commit, whatever the durability — the pages, then
/// the meta page — so that the file changes at every commit even with `.noSync`, which only skips
/// the `fsync`s. One thread per environment blocks in `read` on the watch while anyone subscribes,
/// and calls each subscriber's wake-up on every batch of events; it ends when the last leaves.
///
/// The event may come a moment before LMDB publishes the commit's transaction id (the meta page is
/// written, then the id is set in `lock.mdb`'s shared memory): a follower that finds nothing new
/// after a wake-up polls again soon, backing off (``JournalFollower``). Where `inotify` is not
/// available (not Linux, or out of watches), ``subscribe(_:)`` returns nil and followers poll.
final class CommitWatcher: Sendable {
    private struct State {
        var subscribers: [Int: @Sendable () -> Void] = [:]
        var nextID = 0
        /// The inotify descriptor and watch of the running thread, while anyone subscribes.
        var watch: (descriptor: Int32, watch: Int32)?
    }

    private let file: String
    private let state = LockedState(State())
    /// Batches of file events seen (tests read it: an idle store sees none).
    let wakeups = Atomic<Int>(0)

    private static let watchers = EnvironmentShared<CommitWatcher>()

    init(file: String) { self.file = file }

    /// The watcher of `store`'s environment, made on first use.
    static func shared(for store: Store) -> CommitWatcher {
        watchers.object(for: store.environment) {
            CommitWatcher(file: (store.path as NSString).appendingPathComponent("data.mdb"))
        }
    }

    /// Calls `wake` (on the watcher's thread) after each change of the store's data file, until
    /// ``unsubscribe(_:)``.
    /// - Returns: the subscription's id, or nil when the file cannot be watched (poll instead).
    func subscribe(_ wake: @escaping @Sendable () -> Void) -> Int? {
        state.withLock { state in
            if state.watch == nil {
                guard let watch = startWatching() else { return nil }
                state.watch = watch
            }
            state.nextID += 1
            state.subscribers[state.nextID] = wake
            return state.nextID
        }
    }

    /// Ends a subscription; the watch ends with the last one.
    func unsubscribe(_ id: Int) {
        state.withLock { state in
            state.subscribers[id] = nil
            guard state.subscribers.isEmpty, let watch = state.watch else { return }
            state.watch = nil
            #if canImport(Glibc)
            // The removal queues IN_IGNORED, which wakes the thread to close the descriptor and end.
            inotify_rm_watch(watch.descriptor, watch.watch)
            #endif
        }
    }

    /// The subscribers now (tests check that ended observations left).
    var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// Starts the thread reading a new inotify watch of the file; nil when that fails.
    private func startWatching() -> (descriptor: Int32, watch: Int32)? {
        #if canImport(Glibc)
        let descriptor = inotify_init1(Int32(IN_CLOEXEC))
        guard descriptor >= 0 else { return nil }
        let mask = UInt32(IN_MODIFY | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF)
        let watch = inotify_add_watch(descriptor, file, mask)
        guard watch >= 0 else {
            close(descriptor)
            return nil
        }
        Thread.detachNewThread { [self] in readEvents(descriptor) }
        return (descriptor, watch)
        #else
        return nil
        #endif
    }

    /// The thread: wakes the subscribers after each read of events, until the watch is removed.
    private func readEvents(_ descriptor: Int32) {
        #if canImport(Glibc)
        defer {
            // A deleted file ends the watch too: let the next subscriber start another.
            state.withLock { if $0.watch?.descriptor == descriptor { $0.watch = nil } }
            close(descriptor)
        }
        let size = 4096
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        defer { buffer.deallocate() }
        while true {
            let count = read(descriptor, buffer, size)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }
            var ended = false
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let event = buffer.load(fromByteOffset: offset, as: inotify_event.self)
                if event.mask & UInt32(IN_IGNORED) != 0 { ended = true }
                offset += MemoryLayout<inotify_event>.size + Int(event.len)
            }
            wakeups.add(1, ordering: .relaxed)
            for wake in state.withLock({ Array($0.subscribers.values) }) { wake() }
            if ended { return }
        }
        #endif
    }
}
