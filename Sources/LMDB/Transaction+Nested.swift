import CLMDB

extension Transaction {
    /// Runs `body` in a transaction nested in this write transaction (`mdb_txn_begin` with this
    /// one as its parent): when `body` returns, its changes merge into this transaction (they
    /// commit or vanish with it); when it throws, they are dropped and this transaction is as it
    /// was before.
    ///
    /// ```swift
    /// try env.write { txn in
    ///     try txn.put(Array("a".utf8), Array("1".utf8), in: db)
    ///     try? txn.nested { child in
    ///         try child.put(Array("b".utf8), Array("2".utf8), in: db)
    ///         throw Cancelled()                       // drops "b", keeps "a"
    ///     }
    /// }
    /// ```
    ///
    /// LMDB's rules: while the nested transaction is open this one may not be used (only the
    /// child is); nesting is not available to environments opened with `MDB_WRITEMAP` (this
    /// layer never sets it). A nested transaction that runs out of map space fails with
    /// `MDB_MAP_FULL` — even when `body` swallowed the error — and marks this transaction too, so
    /// that its ``Environment/write(_:)`` grows the map and runs again.
    package func nested<T>(_ body: (Transaction) throws -> T) throws -> T {
        precondition(!isReadOnly, "a read-only transaction cannot nest a write")
        var child: OpaquePointer?
        try LMDBError.check(mdb_txn_begin(mdb_txn_env(txn), txn, 0, &child), "mdb_txn_begin(nested)")
        let transaction = Transaction(child!, readOnly: false)
        let result: T
        do {
            result = try body(transaction)
        } catch {
            mdb_txn_abort(child)
            if transaction.sawMapFull { mapFull?.value = true }
            throw error
        }
        if transaction.sawMapFull {
            mdb_txn_abort(child)
            mapFull?.value = true
            throw LMDBError(code: MDB_MAP_FULL, operation: "mdb_put")
        }
        let commit = mdb_txn_commit(child)
        if commit == MDB_MAP_FULL { mapFull?.value = true }
        try LMDBError.check(commit, "mdb_txn_commit(nested)")
        return result
    }
}
