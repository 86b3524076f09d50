import CRawLMDB
import Foundation

/// A failed LMDB C call in the raw baseline.
struct RawLMDBError: Error, CustomStringConvertible {
    let code: Int32
    let call: String
    var description: String { "\(call) failed: \(String(cString: mdb_strerror(code))) (\(code))" }
}

@inline(__always)
func lmdbCheck(_ rc: Int32, _ call: StaticString) throws(RawLMDBError) {
    if rc != MDB_SUCCESS { throw RawLMDBError(code: rc, call: "\(call)") }
}

/// An LMDB environment opened through the C API, with the flags kvstore uses (`MDB_NOTLS`, full
/// sync), so that the baseline differs from kvstore only by what kvstore does on top of LMDB.
final class RawEnvironment {
    let handle: OpaquePointer
    let mapSize: Int

    init(path: String, mapSize: Int, readOnly: Bool = false) throws {
        var env: OpaquePointer?
        try lmdbCheck(mdb_env_create(&env), "mdb_env_create")
        guard let env else { throw RawLMDBError(code: ENOMEM, call: "mdb_env_create") }
        do {
            try lmdbCheck(mdb_env_set_maxdbs(env, 4), "mdb_env_set_maxdbs")
            try lmdbCheck(mdb_env_set_mapsize(env, mapSize), "mdb_env_set_mapsize")
            var flags = UInt32(MDB_NOTLS)
            if readOnly { flags |= UInt32(MDB_RDONLY) }
            try lmdbCheck(mdb_env_open(env, path, flags, 0o600), "mdb_env_open")
        } catch {
            mdb_env_close(env)
            throw error
        }
        handle = env
        self.mapSize = mapSize
    }

    deinit { mdb_env_close(handle) }

    /// Runs `body` in a transaction: a write commits when `body` returns; a read is aborted.
    func transaction<T>(readOnly: Bool, _ body: (OpaquePointer) throws -> T) throws -> T {
        var txn: OpaquePointer?
        try lmdbCheck(mdb_txn_begin(handle, nil, readOnly ? UInt32(MDB_RDONLY) : 0, &txn), "mdb_txn_begin")
        guard let txn else { throw RawLMDBError(code: EINVAL, call: "mdb_txn_begin") }
        let result: T
        do {
            result = try body(txn)
        } catch {
            mdb_txn_abort(txn)
            throw error
        }
        if readOnly {
            mdb_txn_abort(txn)
        } else {
            try lmdbCheck(mdb_txn_commit(txn), "mdb_txn_commit")
        }
        return result
    }

    /// Opens (or creates) a named database; the handle stays valid for the environment's life
    /// (its transaction is committed, even a read-only one, so that LMDB keeps the handle).
    func openDatabase(_ name: String, create: Bool) throws -> MDB_dbi {
        var txn: OpaquePointer?
        try lmdbCheck(mdb_txn_begin(handle, nil, create ? 0 : UInt32(MDB_RDONLY), &txn), "mdb_txn_begin")
        var dbi = MDB_dbi()
        let rc = mdb_dbi_open(txn, name, create ? UInt32(MDB_CREATE) : 0, &dbi)
        if rc != MDB_SUCCESS {
            mdb_txn_abort(txn)
            try lmdbCheck(rc, "mdb_dbi_open")
        }
        try lmdbCheck(mdb_txn_commit(txn), "mdb_txn_commit")
        return dbi
    }

    /// Calls `body` with every key and value of the database, in key order.
    func forEach(in dbi: MDB_dbi, _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Void) throws {
        try withReadCursor(on: dbi) { cursor in
            var key = MDB_val()
            var value = MDB_val()
            var rc = mdb_cursor_get(cursor, &key, &value, MDB_FIRST)
            while rc == MDB_SUCCESS {
                try body(key.bytes, value.bytes)
                rc = mdb_cursor_get(cursor, &key, &value, MDB_NEXT)
            }
            if rc != MDB_NOTFOUND { try lmdbCheck(rc, "mdb_cursor_get") }
        }
    }

    /// The last key of the database, or nil when it is empty.
    func lastKey(in dbi: MDB_dbi) throws -> [UInt8]? {
        try withReadCursor(on: dbi) { cursor in
            var key = MDB_val()
            var value = MDB_val()
            let rc = mdb_cursor_get(cursor, &key, &value, MDB_LAST)
            if rc == MDB_NOTFOUND { return nil }
            try lmdbCheck(rc, "mdb_cursor_get")
            return Array(key.bytes)
        }
    }

    /// Runs `body` with a cursor on `dbi` in a read transaction.
    private func withReadCursor<T>(on dbi: MDB_dbi, _ body: (OpaquePointer?) throws -> T) throws -> T {
        try transaction(readOnly: true) { txn in
            var cursor: OpaquePointer?
            try lmdbCheck(mdb_cursor_open(txn, dbi, &cursor), "mdb_cursor_open")
            defer { mdb_cursor_close(cursor) }
            return try body(cursor)
        }
    }
}

extension MDB_val {
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: mv_data, count: mv_size) }
}

/// Many byte strings packed in one allocation: the raw baseline's keys and values, addressed by
/// index without Swift arrays (and their reference counting) in the timed loops.
final class PackedBytes {
    private let storage: UnsafeMutableRawPointer
    private let offsets: UnsafeMutablePointer<Int>
    let count: Int
    let totalBytes: Int

    init(_ items: [[UInt8]]) {
        count = items.count
        totalBytes = items.reduce(0) { $0 + $1.count }
        storage = .allocate(byteCount: max(totalBytes, 1), alignment: 16)
        offsets = .allocate(capacity: count + 1)
        var offset = 0
        for (index, item) in items.enumerated() {
            offsets[index] = offset
            item.withUnsafeBytes { bytes in
                if let base = bytes.baseAddress { storage.advanced(by: offset).copyMemory(from: base, byteCount: bytes.count) }
            }
            offset += item.count
        }
        offsets[count] = offset
    }

    deinit {
        storage.deallocate()
        offsets.deallocate()
    }

    /// Item `index` as an `MDB_val` pointing into the packed storage.
    @inline(__always)
    func val(_ index: Int) -> MDB_val {
        MDB_val(mv_size: offsets[index + 1] - offsets[index], mv_data: storage.advanced(by: offsets[index]))
    }

    func size(_ index: Int) -> Int { offsets[index + 1] - offsets[index] }
}
