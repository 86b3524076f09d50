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
        // The variables below are written by the leading thread and read here after the wait; the
        // queue's lock orders the two.
        try withoutActuallyEscaping(body) { body in
            var result: T?
            var batch: ObservationBatch?
            var clock: ClockCache.Entry?
            var replaced: ObservationHub.ReplacedState?
            var ticket: UInt64?
            var priorsSent = 0
            let observation = self.observation
            let write = GroupedWrite(
                body: { txn in
                    batch = nil
                    clock = nil
                    let transaction = WriteTransaction(store: self, transaction: txn)
                    transaction.priorsSentBefore = priorsSent
                    defer { priorsSent = max(priorsSent, transaction.priorsSent) }
                    result = try body(transaction)
                    try transaction.finish()
                    clock = transaction.clockAfterCommit
                    batch = observation.batch(for: transaction)
                },
                merged: {
                    if let batch { replaced = observation.applyMerged(batch) }
                },
                discarded: {
                    if let state = replaced { observation.restore(state) }
                    replaced = nil
                },
                committed: {
                    if let clock { self.clocks.committed(clock) }
                    if let batch { ticket = observation.enqueue(batch) }
                })
            try join(write)
            if let error = write.error {
                if let error = error as? LMDBError { throw writeError(error) }
                throw error
            }
            if let ticket { observation.deliver(through: ticket) }
            return result!
        }
    }

    /// Runs `write` in its group; `write.error` tells how it went.
    /// - Throws: ``StoreError/Code/nestedWrite`` (or the read-only error) before it waits.
    private func join(_ write: GroupedWrite) throws(StoreError) {
        do { try environment.write(write) } catch { throw writeError(error) }
    }
}
