import CLMDB

extension Environment {
    /// The id of the newest committed write transaction, by this process or any other.
    ///
    /// Reads the environment's meta pages (`mdb_env_info`'s `me_last_txnid`) without opening a
    /// transaction, so a follower can poll it cheaply: it changes after every commit that wrote
    /// something, and only then (a write transaction that wrote nothing commits no new meta page).
    ///
    /// ```swift
    /// let seen = env.lastTransactionID
    /// // … later
    /// if env.lastTransactionID != seen { /* something committed: read what is new */ }
    /// ```
    ///
    /// A read transaction begun just after the id changes may still see the snapshot before it
    /// (LMDB publishes the id to readers a moment after writing the meta page): compare with the
    /// reading transaction's ``Transaction/id`` rather than assuming it saw this id.
    public var lastTransactionID: Int {
        var info = MDB_envinfo()
        mdb_env_info(handle, &info)
        return info.me_last_txnid
    }
}
