#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Committed batches of notifications waiting to be delivered, in commit order, by one thread at
/// a time.
///
/// A batch is queued while its writer still holds the write lock, so the queue is in commit (and
/// journal) order. After unlocking, the writer calls ``deliver(through:_:)``: when no one else is
/// delivering, it delivers every queued batch up to and including its own; when another thread is
/// delivering, it waits until its batch has been delivered. So a write returns only after its own
/// commit's notifications ran, and every observer sees commits in order.
///
/// A write made from a callback (on the delivering thread) queues its batch and returns at once;
/// the delivery under way delivers it after the current batch — no deadlock, no recursion.
final class DeliveryQueue<Batch>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    // Guarded by `mutex`:
    private var pending: [Batch] = []
    private var head = 0
    private var queued: UInt64 = 0
    private var delivered: UInt64 = 0
    /// The delivering thread (0: none), and the last ticket it will deliver.
    private var deliverer: UInt = 0
    private var target: UInt64 = 0

    init() {
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition.initialize(to: pthread_cond_t())
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Queues a batch.
    /// - Returns: its ticket, for ``deliver(through:_:)``.
    func enqueue(_ batch: Batch) -> UInt64 {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        pending.append(batch)
        queued += 1
        return queued
    }

    /// Returns once the batch with `ticket` has been delivered, delivering with `run` when no
    /// other thread is; from inside `run` on the delivering thread, returns at once and leaves the
    /// batch to the delivery under way.
    func deliver(through ticket: UInt64, _ run: (Batch) -> Void) {
        let thread = Self.currentThread()
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        if deliverer == thread {
            target = max(target, ticket)
            return
        }
        while delivered < ticket {
            if deliverer != 0 {
                pthread_cond_wait(condition, mutex)
                continue
            }
            deliverer = thread
            target = ticket
            while delivered < target {
                let batch = pending[head]
                head += 1
                if head == pending.count || head > 1024 {
                    pending.removeFirst(head)
                    head = 0
                }
                pthread_mutex_unlock(mutex)
                run(batch)
                pthread_mutex_lock(mutex)
                delivered += 1
            }
            deliverer = 0
            pthread_cond_broadcast(condition)
        }
    }

    private static func currentThread() -> UInt {
        #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
        #else
        UInt(pthread_self())
        #endif
    }
}
