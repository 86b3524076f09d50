import LMDB

extension Store {
    /// Throws ``StoreError/Code/filesReplaced`` when the store's `lock.mdb` or `data.mdb` was
    /// removed or replaced since it was opened: every write checks it before it begins, and
    /// followers of the journal as they poll (a reader of the old files no longer sees the
    /// commits of processes that opened the new ones). A `stat` and an `fstat`, about 1 µs.
    ///
    /// ```swift
    /// try store.checkFilesUnchanged()
    /// ```
    public func checkFilesUnchanged() throws(StoreError) {
        do { try environment.checkFilesUnchanged() } catch { throw StoreError.storage(error, path: path) }
    }
}
