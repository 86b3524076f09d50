import CLMDB

extension Environment {
    /// Runs `write` in a group commit: when a write is under way, `write` waits for it; then the
    /// first write that waited runs every waiting write's body in one LMDB write transaction, each
    /// in a nested transaction of its own (``Transaction/nested(_:)``), commits once, and wakes
    /// them. Each write keeps its own outcome, in ``GroupedWrite/error``: a body that throws drops
    /// only its own changes; a failed commit fails every write whose body succeeded. A write that
    /// finds no write under way runs alone, with no nested transaction.
    ///
    /// When the map fills, the whole group runs again after it grew (bodies may run more than
    /// once). A write refused before it waits (read-only, or started inside a transaction on the
    /// calling thread: ``checkWriteAllowed()``) throws; otherwise the call returns once the write
    /// committed or failed, and the caller reads ``GroupedWrite/error``.
    ///
    /// The bodies run on the leading thread, which holds the write lock: a body that starts a
    /// write of this environment fails with `EDEADLK`, as it would on its own thread.
    ///
    /// With ``Durability/full`` the leader commits, lets the next group start, syncs once for the
    /// group (``syncCommitted(since:)``), and only then wakes the group's writers.
    package func write(_ write: GroupedWrite) throws(LMDBError) {
        try checkWriteAllowed()
        // The write's closures are not called after this point; the caller may own what they capture.
        defer { write.dropClosures() }
        guard let group = commitQueue.join([write]) else { return }
        _ = lead(group, deferringSyncOf: 0)
    }

    /// Runs `writes` together in a group commit, as ``write(_:)`` runs one, without waiting for
    /// the ``Durability/full`` sync of their commit when they made up the group alone: then it
    /// returns the commit, and the caller must call ``syncCommitted(since:)`` with it before it
    /// tells their writers that they committed (each write's ``GroupedWrite/error`` is nil).
    /// Meanwhile the next group commits. It returns nil when nothing is left to sync: the writes
    /// failed, or another write led their group (it synced before it woke them), or the
    /// durability needs no sync.
    ///
    /// The closures stay: the caller owns them and the writes.
    package func writeDeferringSync(_ writes: [GroupedWrite]) throws(LMDBError) -> UnsyncedCommit? {
        try checkWriteAllowed()
        guard let group = commitQueue.join(writes) else { return nil }
        return lead(group, deferringSyncOf: writes.count)
    }

    /// Runs `group` (led by the calling thread) and ends it: commits, hands the queue on, syncs
    /// unless the sync is deferred to the caller (when the caller's `deferred` writes are the whole
    /// group), and wakes the group. - Returns: the commit when its sync was deferred.
    private func lead(_ group: [GroupedWrite], deferringSyncOf deferred: Int) -> UnsyncedCommit? {
        var unsynced: UnsyncedCommit?
        writeLock.withLock { _ in
            writerThread.store(currentThreadID(), ordering: .relaxed)
            defer { writerThread.store(0, ordering: .relaxed) }
            do {
                var committed: UnsyncedCommit?
                while try !commit(group, committed: &committed) {}
                if let committed, group.contains(where: { $0.error == nil }) {
                    unsynced = try settle(committed)
                }
            } catch {
                for write in group where write.error == nil { write.error = error }
            }
        }
        commitQueue.handOn()
        if let unsynced, group.count != deferred {
            do { try syncCommitted(since: unsynced) } catch {
                for write in group where write.error == nil { write.error = error }
            }
        }
        commitQueue.wake(group)
        return group.count == deferred ? unsynced : nil
    }

    /// Runs the group's transaction once; `committed` is set when it committed.
    /// - Returns: false when the group must run again: the map grew, or a write's failed nested commit
    ///   left the transaction unusable (it is left out).
    private func commit(_ group: [GroupedWrite], committed: inout UnsyncedCommit?) throws(LMDBError) -> Bool {
        let nested = group.count > 1
        for write in group where !write.isLeftOut { write.error = nil }
        let txn = try beginWrite()
        let transaction = Transaction(txn, readOnly: false)
        var merged: [GroupedWrite] = []
        for write in group where !write.isLeftOut {
            do {
                if nested {
                    try transaction.nested(write.body)
                    write.merged()
                } else {
                    try write.body(transaction)
                }
                merged.append(write)
            } catch {
                write.error = error
                // LMDB may have marked the group's transaction unusable (a body swallowed an error
                // LMDB marked its nested transaction with): run the group again without this write.
                if transaction.nestedCommitFailed {
                    write.isLeftOut = true
                    mdb_txn_abort(txn)
                    discard(merged)
                    return false
                }
            }
        }
        // Out of map space: grow and run again — unless the map is as large as it may get, when a
        // group still commits the writes that fitted (those that did not failed with MDB_MAP_FULL).
        if transaction.sawMapFull, !nested || currentMapSize < options.maxMapSize {
            mdb_txn_abort(txn)
            if nested { discard(merged) }
            if try growMap() { return false }
            if group[0].error == nil { group[0].error = LMDBError(code: MDB_MAP_FULL, operation: "mdb_put") }
            return true
        }
        if merged.isEmpty {
            mdb_txn_abort(txn)
            return true
        }
        let commit = commitWrite(txn)
        if commit.code != 0 {
            if nested { discard(merged) }
            if commit.code == MDB_MAP_FULL, try growMap() { return false }
            throw LMDBError(code: commit.code, operation: "mdb_txn_commit")
        }
        committed = commit.commit
        for write in merged {
            if !nested { write.merged() }
            write.committed()
        }
        return true
    }

    /// Tells merged writes, last first, that the group's transaction was aborted.
    private func discard(_ merged: [GroupedWrite]) {
        for write in merged.reversed() { write.discarded() }
    }
}
