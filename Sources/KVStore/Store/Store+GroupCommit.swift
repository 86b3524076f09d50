import LMDB

extension Store {
    /// ``write(_:)`` for a write that found another under way: it joins the next group commit
    /// (`Environment.write(_: GroupedWrite)`), whose leader runs `body` on its own thread while
    /// this one waits, in a nested transaction of the group's.
    func writeInGroup<T>(_ body: (WriteTransaction) throws -> T) throws -> T {
        // `body` is not escaping, yet it is handed to the thread leading the group. That is safe:
        // this thread waits in `environment.write` until the group is over, every call of `body`
        // happens before that, and the grouped write drops its closures (and so `body`) before it
        // returns — `withoutActuallyEscaping` checks that nothing still holds `body` when it ends.
        // What the leading thread records in `write` is read here after the wait; the queue's
        // lock orders the two.
        try withoutActuallyEscaping(body) { body in
            let write = StoreGroupedWrite(store: self, body: body)
            // Its closures and it hold each other: dropping them ends both (and `body`), also
            // when the write is refused before it queues.
            defer { write.grouped.dropClosures() }
            do throws(LMDBError) { try environment.write(write.grouped) } catch { throw writeError(error) }
            return try write.outcome()
        }
    }
}

/// One store write's part in a group commit: its `GroupedWrite` (the body, run by whichever thread
/// leads the group, in a nested transaction of the group's) and what the group's transaction
/// leaves for it — its result, its observer batch and delivery ticket, its clock.
///
/// Written by the thread leading the group while the write's caller waits (a synchronous
/// ``Store/write(_:)-2jclw``) or before the pipeline hands it back (an async one): the queue's lock,
/// or the pipeline's, orders those writes before ``outcome()`` reads them.
final class StoreGroupedWrite<T>: @unchecked Sendable {
    private let store: Store
    private var result: T?
    private var batch: ObservationBatch?
    private var clock: ClockCache.Entry?
    private var replaced: ObservationHub.ReplacedState?
    private var ticket: UInt64?
    private var priorsSent = 0
    /// The write the group runs. Its closures hold this object until the write drops them.
    private(set) var grouped: GroupedWrite!

    init(store: Store, body: @escaping (WriteTransaction) throws -> T) {
        self.store = store
        let observation = store.observation
        grouped = GroupedWrite(
            body: { txn in
                self.batch = nil
                self.clock = nil
                let transaction = WriteTransaction(store: store, transaction: txn)
                transaction.priorsSentBefore = self.priorsSent
                defer { self.priorsSent = max(self.priorsSent, transaction.priorsSent) }
                self.result = try body(transaction)
                try transaction.finish()
                self.clock = transaction.clockAfterCommit
                self.batch = observation.batch(for: transaction)
            },
            merged: {
                if let batch = self.batch { self.replaced = observation.applyMerged(batch) }
            },
            discarded: {
                if let state = self.replaced { observation.restore(state) }
                self.replaced = nil
            },
            committed: {
                if let clock = self.clock { store.clocks.committed(clock) }
                if let batch = self.batch { self.ticket = observation.enqueue(batch) }
            })
    }

    /// After the write: its error (the store's, for LMDB's), or — its observers notified first —
    /// its body's result.
    func outcome() throws -> T {
        if let error = grouped.error {
            if let error = error as? LMDBError { throw store.writeError(error) }
            throw error
        }
        if let ticket { store.observation.deliver(through: ticket) }
        return result!
    }
}
