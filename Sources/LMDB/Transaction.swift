import CLMDB

/// A read or write transaction, valid only during the ``Environment/read(_:)`` or
/// ``Environment/write(_:)`` closure that received it.
///
/// The buffers ``withValue(forKey:in:_:)`` hands its closure and cursors point into LMDB's memory
/// map: they are valid until the transaction ends or, in a write transaction, until the next
/// change. A value's buffer is scoped to the closure; ``value(forKey:in:)`` returns a copy.
public struct Transaction {
    let txn: OpaquePointer
    /// Whether the transaction is read-only.
    public let isReadOnly: Bool
    /// For write transactions: set when a put or a delete (also a cursor's) hit `MDB_MAP_FULL`, so that the environment grows
    /// the map and runs the write again, whatever the closure did with the error.
    let mapFull: MapFullFlag?

    init(_ txn: OpaquePointer, readOnly: Bool) {
        self.txn = txn
        self.isReadOnly = readOnly
        self.mapFull = readOnly ? nil : MapFullFlag()
    }

    var sawMapFull: Bool { mapFull?.value ?? false }

    /// LMDB's id of this transaction; a write transaction's id is the one its commit will have.
    public var id: Int { Int(mdb_txn_id(txn)) }

    /// Opens a named database within this transaction.
    public func openDatabase(_ name: String, create: Bool) throws(LMDBError) -> Database {
        var dbi = MDB_dbi()
        let flags = create ? UInt32(MDB_CREATE) : 0
        try LMDBError.check(mdb_dbi_open(txn, name, flags, &dbi), "mdb_dbi_open(\(name))")
        return Database(dbi: dbi, name: name)
    }

    /// The environment's unnamed main database, which lists the named databases.
    public func mainDatabase() throws(LMDBError) -> Database {
        var dbi = MDB_dbi()
        try LMDBError.check(mdb_dbi_open(txn, nil, 0, &dbi), "mdb_dbi_open(main)")
        return Database(dbi: dbi, name: "(main)")
    }

    /// Calls `body` with the value stored under `key` (nil when there is none) and returns what
    /// it returns. The buffer points into the map, not copied, and is valid only during `body`
    /// (and only until the transaction changes): copy what must outlive it.
    ///
    /// ```swift
    /// let size = try txn.withValue(forKey: Array("k".utf8), in: db) { $0?.count }
    /// ```
    @inlinable
    public func withValue<T>(
        forKey key: UnsafeRawBufferPointer, in db: Database, _ body: (UnsafeRawBufferPointer?) throws -> T
    ) throws -> T {
        try body(try lookUp(key, in: db))
    }

    /// Calls `body` with the value stored under `key`, or nil; see ``withValue(forKey:in:_:)``.
    @inlinable
    public func withValue<T>(forKey key: [UInt8], in db: Database, _ body: (UnsafeRawBufferPointer?) throws -> T) throws -> T {
        try body(try lookUp(key, in: db))
    }

    /// A copy of the value stored under `key`, or nil.
    public func value(forKey key: [UInt8], in db: Database) throws(LMDBError) -> [UInt8]? {
        try lookUp(key, in: db).map(Array.init)
    }

    /// The value stored under `key`, pointing into the map (`mdb_get`), or nil: for a reader in
    /// this package that scopes the buffer itself, as ``withValue(forKey:in:_:)`` does (KVStore's
    /// record reads, which need a key built on the stack).
    @usableFromInline
    package func lookUp(_ key: UnsafeRawBufferPointer, in db: Database) throws(LMDBError) -> UnsafeRawBufferPointer? {
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var v = MDB_val()
        let rc = mdb_get(txn, db.dbi, &k, &v)
        if rc == MDB_NOTFOUND { return nil }
        try LMDBError.check(rc, "mdb_get(\(db.name))")
        return UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size)
    }

    @usableFromInline
    func lookUp(_ key: [UInt8], in db: Database) throws(LMDBError) -> UnsafeRawBufferPointer? {
        try withBytes(key) { (k) throws(LMDBError) in try lookUp(k, in: db) }
    }

    /// Stores `value` under `key`.
    /// - Parameters:
    ///   - append: the key sorts after every key in the database (`MDB_APPEND`: faster; LMDB
    ///     refuses with `MDB_KEYEXIST` when it does not).
    ///   - overwrite: replace an existing value; when false an existing key throws ``LMDBError/keyExists``.
    public func put(
        _ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer, in db: Database,
        append: Bool = false, overwrite: Bool = true
    ) throws(LMDBError) {
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var v = MDB_val(mv_size: value.count, mv_data: UnsafeMutableRawPointer(mutating: value.baseAddress))
        var flags: UInt32 = 0
        if append { flags |= UInt32(MDB_APPEND) }
        if !overwrite { flags |= UInt32(MDB_NOOVERWRITE) }
        let rc = mdb_put(txn, db.dbi, &k, &v, flags)
        if rc == MDB_MAP_FULL { mapFull?.value = true }
        try LMDBError.check(rc, "mdb_put(\(db.name))")
    }

    /// Stores `value` under `key`.
    public func put(_ key: [UInt8], _ value: [UInt8], in db: Database, append: Bool = false, overwrite: Bool = true) throws(LMDBError) {
        try withBytes(key) { (k) throws(LMDBError) in
            try withBytes(value) { (v) throws(LMDBError) in
                try put(k, v, in: db, append: append, overwrite: overwrite)
            }
        }
    }

    /// Stores `value` under `key` only when the key is absent (`MDB_NOOVERWRITE`).
    /// - Returns: false, changing nothing, when the key exists.
    public func insert(_ key: [UInt8], _ value: [UInt8], in db: Database) throws(LMDBError) -> Bool {
        do {
            try put(key, value, in: db, overwrite: false)
            return true
        } catch {
            if error.code == MDB_KEYEXIST { return false }
            throw error
        }
    }

    /// Deletes `key`.
    /// - Returns: whether it existed.
    @discardableResult
    public func delete(_ key: UnsafeRawBufferPointer, in db: Database) throws(LMDBError) -> Bool {
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        let rc = mdb_del(txn, db.dbi, &k, nil)
        if rc == MDB_NOTFOUND { return false }
        if rc == MDB_MAP_FULL { mapFull?.value = true }
        try LMDBError.check(rc, "mdb_del(\(db.name))")
        return true
    }

    /// Deletes `key`.
    /// - Returns: whether it existed.
    @discardableResult
    public func delete(_ key: [UInt8], in db: Database) throws(LMDBError) -> Bool {
        try withBytes(key) { (k) throws(LMDBError) in try delete(k, in: db) }
    }

    /// Deletes every entry of `db` (`mdb_drop` without deleting the database): freeing its pages
    /// rather than deleting entry by entry, so that emptying a large database does not dirty it
    /// page by page.
    ///
    /// ```swift
    /// try env.write { txn in try txn.empty(db) }
    /// ```
    public func empty(_ db: Database) throws(LMDBError) {
        let rc = mdb_drop(txn, db.dbi, 0)
        if rc == MDB_MAP_FULL { mapFull?.value = true }
        try LMDBError.check(rc, "mdb_drop(\(db.name))")
    }

    /// Entry and page counts of `db` as this transaction sees it.
    public func statistics(of db: Database) throws(LMDBError) -> DatabaseStatistics {
        var s = MDB_stat()
        try LMDBError.check(mdb_stat(txn, db.dbi, &s), "mdb_stat(\(db.name))")
        return DatabaseStatistics(
            entries: s.ms_entries, depth: Int(s.ms_depth), branchPages: s.ms_branch_pages,
            leafPages: s.ms_leaf_pages, overflowPages: s.ms_overflow_pages, pageSize: Int(s.ms_psize))
    }

    /// Calls `body` with each entry of `db` whose key is at or after `start` and before `end`
    /// (bytewise; nil: unbounded), in key order, until `body` returns false.
    ///
    /// ```swift
    /// try txn.scan(db, from: Array("user/".utf8), to: Array("user0".utf8)) { key, value in
    ///     print(String(decoding: key, as: UTF8.self)); return true
    /// }
    /// ```
    public func scan(
        _ db: Database, from start: [UInt8] = [], to end: [UInt8]? = nil,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        try withCursor(on: db) { cursor in
            var entry = try cursor.seek(atOrAfter: start)
            while let (key, value) = entry {
                if let end, !key.lexicographicallyPrecedes(end) { return }
                if try !body(key, value) { return }
                entry = try cursor.next()
            }
        }
    }

    /// Calls `body` with each entry of `db` whose key starts with `prefix`, in key order, until
    /// `body` returns false.
    public func scan(
        _ db: Database, prefix: [UInt8],
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        try withCursor(on: db) { cursor in
            var entry = try cursor.seek(atOrAfter: prefix)
            while let (key, value) = entry, key.starts(with: prefix) {
                if try !body(key, value) { return }
                entry = try cursor.next()
            }
        }
    }

    /// Runs `body` with a cursor over `db`; the cursor is closed when `body` returns.
    public func withCursor<T>(on db: Database, _ body: (Cursor) throws -> T) throws -> T {
        var cursor: OpaquePointer?
        try LMDBError.check(mdb_cursor_open(txn, db.dbi, &cursor), "mdb_cursor_open(\(db.name))")
        defer { mdb_cursor_close(cursor) }
        return try body(Cursor(cursor!, database: db, readOnly: isReadOnly, mapFull: mapFull))
    }
}

/// Whether a write transaction ran out of map space (shared by the copies of its `Transaction`).
final class MapFullFlag {
    var value = false
    /// A nested transaction of this one failed to commit: LMDB may have marked this one unusable
    /// (`MDB_TXN_ERROR`, after which every operation but abort fails), so it must be aborted.
    var nestedCommitFailed = false
}
