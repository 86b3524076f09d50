import CRawLMDB
import KVStore

/// The raw baseline of the whole-record, scan, aggregate and small-commit scenarios.
extension RawLMDBEngine {
    /// A cursor over the kind's keys (`bench\0…`), not decoding the records; sums their sizes.
    func scan(_ workload: Workload) throws -> Int {
        var sum = 0
        try forEachRecordOfKind { value in sum &+= value.count }
        return sum
    }

    /// A cursor over the kind, reading the sum key's int from each record's key directory.
    func sum(_ workload: Workload) throws -> Int {
        var sum = 0
        let key = Array(Dataset.sumKey.utf8)
        try forEachRecordOfKind { value in
            guard let int = RecordBytes.int(forKey: key, in: value) else { throw SetupError("a record has no int \(Dataset.sumKey)") }
            sum &+= Int(int)
        }
        return sum
    }

    /// One set per write transaction, one writer.
    func singleCommits(_ workload: Workload) throws -> Int {
        for position in 0 ..< workload.commits { _ = try singleCommit(position: position, of: workload) }
        return workload.commits
    }

    /// One set per write transaction from `workload.writers` threads (LMDB serialises the writers;
    /// the engine's buffers are used only inside a write transaction).
    func concurrentCommits(_ workload: Workload) throws -> Int {
        try workload.onWriterThreads { position in _ = try self.singleCommit(position: position, of: workload) }
        return workload.commits
    }

    /// Full sync, or `MDB_NOMETASYNC` (kvstore's `.noMetaSync`), or `MDB_NOSYNC` (`.noSync`, and
    /// `.periodicSync` without its background sync).
    func use(_ durability: Durability) throws {
        try lmdbCheck(mdb_env_set_flags(environment.handle, UInt32(MDB_NOMETASYNC | MDB_NOSYNC), 0), "mdb_env_set_flags")
        let flag: Int32 = switch durability {
        case .full: 0
        case .noMetaSync: MDB_NOMETASYNC
        case .noSync, .periodicSync: MDB_NOSYNC  // periodicSync: no background sync on this side
        }
        if flag != 0 { try lmdbCheck(mdb_env_set_flags(environment.handle, UInt32(flag), 1), "mdb_env_set_flags") }
    }

    private func forEachRecordOfKind(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let prefix = Array(Dataset.kind.utf8) + [0]
        try environment.transaction(readOnly: true) { txn in
            var cursor: OpaquePointer?
            try lmdbCheck(mdb_cursor_open(txn, records, &cursor), "mdb_cursor_open")
            defer { mdb_cursor_close(cursor) }
            var start = prefix
            try start.withUnsafeMutableBytes { startBytes in
                var key = MDB_val(mv_size: startBytes.count, mv_data: startBytes.baseAddress)
                var value = MDB_val()
                var rc = mdb_cursor_get(cursor, &key, &value, MDB_SET_RANGE)
                while rc == MDB_SUCCESS, key.bytes.starts(with: prefix) {
                    try body(value.bytes)
                    rc = mdb_cursor_get(cursor, &key, &value, MDB_NEXT)
                }
                if rc != MDB_SUCCESS && rc != MDB_NOTFOUND { try lmdbCheck(rc, "mdb_cursor_get") }
            }
        }
    }
}

/// Just enough of kvstore's record encoding (see `RecordCodec` in the main package) to read one
/// int from a record's key directory, as a C program reading the bytes would: version byte,
/// varint count, (count + 1) little-endian UInt32 entry offsets, entries sorted by key bytes, each
/// a varint key length, the key, a tag (0x03 = int, zigzag varint). Binary search on the directory.
enum RecordBytes {
    static func int(forKey key: [UInt8], in bytes: UnsafeRawBufferPointer) -> Int64? {
        var offset = 1
        guard let count = varint(bytes, &offset) else { return nil }
        let table = offset
        let entries = table + (Int(count) + 1) * 4
        func entryStart(_ i: Int) -> Int { entries + Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: table + i * 4, as: UInt32.self))) }
        var low = 0, high = Int(count)
        while low < high {
            let middle = (low + high) / 2
            var at = entryStart(middle)
            guard let length = varint(bytes, &at) else { return nil }
            let entryKey = UnsafeRawBufferPointer(rebasing: bytes[at ..< at + Int(length)])
            if entryKey.elementsEqual(key) {
                at += Int(length)
                guard bytes[at] == 0x03 else { return nil }
                at += 1
                guard let zigzag = varint(bytes, &at) else { return nil }
                return Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)
            }
            if entryKey.lexicographicallyPrecedes(key) { low = middle + 1 } else { high = middle }
        }
        return nil
    }

    private static func varint(_ bytes: UnsafeRawBufferPointer, _ offset: inout Int) -> UInt64? {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while offset < bytes.count, shift < 64 {
            let byte = bytes[offset]
            offset += 1
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
        }
        return nil
    }
}
