import CLMDB

extension Environment {
    /// Clears the reader slots of processes that ended without closing their read transactions
    /// (killed, crashed): `mdb_reader_check`. Such a slot pins the pages of its snapshot, so pages
    /// freed since cannot be reused and the file grows. Opening an environment does this; a
    /// long-lived process does it again before growing its map (see ``write(_:)``).
    ///
    /// ```swift
    /// let cleared = try environment.clearStaleReaders()   // 1 after a reader was SIGKILLed
    /// ```
    /// - Returns: the number of slots cleared.
    @discardableResult
    public func clearStaleReaders() throws(LMDBError) -> Int {
        var dead: Int32 = 0
        try LMDBError.check(mdb_reader_check(handle, &dead), "mdb_reader_check")
        return Int(dead)
    }
}
