import CLMDB

/// A position in a database, valid only inside ``Transaction/withCursor(on:_:)``.
///
/// Entries are visited in key order (bytewise). Keys and values point into the map; see
/// ``Transaction`` for how long they stay valid. In a read-only transaction the cursor gives the
/// map's pages it has passed back to the kernel as it goes, so a scan of any size keeps the
/// process's resident memory flat (see ``MappedPages``).
///
/// ```swift
/// try txn.withCursor(on: db) { cursor in
///     var entry = try cursor.seek(atOrAfter: prefix)
///     while let (key, value) = entry, key.starts(with: prefix) {
///         …
///         entry = try cursor.next()
///     }
/// }
/// ```
public struct Cursor {
    /// A key and its value, both pointing into LMDB's map.
    public typealias Entry = (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)

    let cursor: OpaquePointer
    let database: Database
    /// In a read-only transaction: the map's pages passed, given back as the cursor moves on.
    let passedPages: MappedPages?
    /// In a write transaction: the transaction's flag, set when a delete hits `MDB_MAP_FULL`.
    let mapFull: MapFullFlag?

    init(_ cursor: OpaquePointer, database: Database, readOnly: Bool, mapFull: MapFullFlag?) {
        self.cursor = cursor
        self.database = database
        self.passedPages = readOnly ? MappedPages() : nil
        self.mapFull = mapFull
    }

    private func move(_ op: MDB_cursor_op, key: UnsafeRawBufferPointer? = nil) throws(LMDBError) -> Entry? {
        var k = MDB_val(mv_size: key?.count ?? 0, mv_data: UnsafeMutableRawPointer(mutating: key?.baseAddress))
        var v = MDB_val()
        let rc = mdb_cursor_get(cursor, &k, &v, op)
        if rc == MDB_NOTFOUND { return nil }
        try LMDBError.check(rc, "mdb_cursor_get(\(database.name))")
        let entry = (UnsafeRawBufferPointer(start: k.mv_data, count: k.mv_size),
                     UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size))
        passedPages?.note(entry.0, entry.1)
        return entry
    }

    /// The first entry.
    public func first() throws(LMDBError) -> Entry? { try move(MDB_FIRST) }
    /// The last entry.
    public func last() throws(LMDBError) -> Entry? { try move(MDB_LAST) }
    /// The entry after the current one.
    public func next() throws(LMDBError) -> Entry? { try move(MDB_NEXT) }
    /// The entry before the current one.
    public func previous() throws(LMDBError) -> Entry? { try move(MDB_PREV) }

    /// The first entry whose key is `key` or sorts after it.
    public func seek(atOrAfter key: [UInt8]) throws(LMDBError) -> Entry? {
        if key.isEmpty { return try first() }
        return try withBytes(key) { (k) throws(LMDBError) in try move(MDB_SET_RANGE, key: k) }
    }

    /// Deletes the entry at the cursor (write transactions only).
    ///
    /// A delete copies the pages on its path before changing them, so it can find the map full:
    /// like a put, that makes ``Environment/write(_:)`` grow the map and run its closure again.
    public func deleteCurrent() throws(LMDBError) {
        let rc = mdb_cursor_del(cursor, 0)
        if rc == MDB_MAP_FULL { mapFull?.value = true }
        try LMDBError.check(rc, "mdb_cursor_del(\(database.name))")
    }
}
