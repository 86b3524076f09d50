import CRawLMDB

/// The baseline: the same scenarios written directly against LMDB's C API, on a copy of the bytes
/// kvstore stored (records and journal), doing the same LMDB work kvstore must do at the least:
/// the same gets and puts of the same sizes in transactions of the same size.
final class RawLMDBEngine {
    let environment: RawEnvironment
    let records: MDB_dbi
    let journal: MDB_dbi
    /// Keys of the base records (`bench\0r000123`), by index.
    let keys: PackedBytes
    /// Keys, kvstore-encoded values and kvstore journal-entry sizes of the insert pool.
    let poolKeys: PackedBytes
    let poolValues: PackedBytes
    let poolJournalSizes: [Int]
    /// The size of kvstore's journal entry for one int set, and a buffer holding entry bytes.
    let setJournalSize: Int
    private let entryBytes: UnsafeMutableRawPointer
    private let recordBuffer: UnsafeMutableRawPointer
    private static let recordBufferSize = 1 << 16
    /// The last journal sequence used; appends continue from it.
    private var sequence: UInt64

    init(environment: RawEnvironment, records: MDB_dbi, journal: MDB_dbi, baseCount: Int, pool: EncodedPool) throws {
        self.environment = environment
        self.records = records
        self.journal = journal
        keys = PackedBytes((0 ..< baseCount).map(Dataset.key))
        poolKeys = PackedBytes(pool.indexes.map(Dataset.key))
        poolValues = PackedBytes(pool.recordBytes)
        poolJournalSizes = pool.insertEntrySizes
        setJournalSize = pool.setEntry.count
        let entrySize = max(pool.insertEntrySizes.max() ?? 0, pool.setEntry.count)
        entryBytes = .allocate(byteCount: entrySize, alignment: 16)
        // Entry content does not matter to LMDB, only its size: repeat a real entry's bytes.
        for offset in 0 ..< entrySize { entryBytes.storeBytes(of: pool.setEntry[offset % pool.setEntry.count], toByteOffset: offset, as: UInt8.self) }
        recordBuffer = .allocate(byteCount: Self.recordBufferSize, alignment: 16)
        let last = try environment.lastKey(in: journal) ?? []
        sequence = last.count == 8 ? last.reduce(0) { $0 << 8 | UInt64($1) } : 0
    }

    deinit {
        entryBytes.deallocate()
        recordBuffer.deallocate()
    }

    /// One read transaction per `mdb_get`; sums each value's first byte.
    func singleReads(_ workload: Workload) throws -> Int {
        var sum = 0
        for index in workload.readOrder {
            var txn: OpaquePointer?
            try lmdbCheck(mdb_txn_begin(environment.handle, nil, UInt32(MDB_RDONLY), &txn), "mdb_txn_begin")
            var key = keys.val(index)
            var value = MDB_val()
            let rc = mdb_get(txn, records, &key, &value)
            if rc == MDB_SUCCESS { sum &+= Int(value.mv_data.load(as: UInt8.self)) }
            mdb_txn_abort(txn)
            try lmdbCheck(rc, "mdb_get")
        }
        return sum
    }

    /// `batch` gets per read transaction.
    func batchedReads(_ workload: Workload) throws -> Int {
        var sum = 0
        for range in workload.batches(of: workload.readOrder.indices) {
            sum &+= try environment.transaction(readOnly: true) { txn in
                var partial = 0
                for position in range {
                    var key = keys.val(workload.readOrder[position])
                    var value = MDB_val()
                    try lmdbCheck(mdb_get(txn, records, &key, &value), "mdb_get")
                    partial &+= Int(value.mv_data.load(as: UInt8.self))
                }
                return partial
            }
        }
        return sum
    }

    /// Per set: get the record, put back a same-size copy with one byte changed, append a journal
    /// entry of kvstore's size; `batch` sets per write transaction.
    func batchedSets(_ workload: Workload) throws -> Int {
        var sum = 0
        for range in workload.batches(of: workload.setTargets.indices) {
            try environment.transaction(readOnly: false) { txn in
                for position in range { sum &+= try set(txn, position: position, of: workload) }
            }
        }
        return sum
    }

    /// One set (see ``batchedSets(_:)``) in a write transaction of its own.
    func singleCommit(position: Int, of workload: Workload) throws -> Int {
        try environment.transaction(readOnly: false) { txn in try set(txn, position: position, of: workload) }
    }

    /// Gets the record, puts back a same-size copy with one byte changed, appends a journal entry.
    /// - Returns: the record's size.
    private func set(_ txn: OpaquePointer, position: Int, of workload: Workload) throws -> Int {
        var key = keys.val(workload.setTargets[position])
        var value = MDB_val()
        try lmdbCheck(mdb_get(txn, records, &key, &value), "mdb_get")
        precondition(value.mv_size <= Self.recordBufferSize)
        recordBuffer.copyMemory(from: value.mv_data, byteCount: value.mv_size)
        let last = recordBuffer.advanced(by: value.mv_size - 1)
        last.storeBytes(of: last.load(as: UInt8.self) ^ UInt8(truncatingIfNeeded: workload.setValues[position] | 1), as: UInt8.self)
        var copy = MDB_val(mv_size: value.mv_size, mv_data: recordBuffer)
        try lmdbCheck(mdb_put(txn, records, &key, &copy, 0), "mdb_put(records)")
        try appendJournalEntry(txn, size: setJournalSize)
        return value.mv_size
    }

    /// Per insert: put the kvstore-encoded record under its new key, append a journal entry of
    /// kvstore's size for it; `batch` inserts per write transaction.
    func batchedInserts(_ workload: Workload) throws -> Int {
        var sum = 0
        for range in workload.batches(of: workload.insertRange) {
            try environment.transaction(readOnly: false) { txn in
                for position in range {
                    var key = poolKeys.val(position)
                    var value = poolValues.val(position)
                    try lmdbCheck(mdb_put(txn, records, &key, &value, UInt32(MDB_NOOVERWRITE)), "mdb_put(records)")
                    try appendJournalEntry(txn, size: poolJournalSizes[position])
                    sum &+= value.mv_size
                }
            }
        }
        return sum
    }

    @inline(__always)
    private func appendJournalEntry(_ txn: OpaquePointer, size: Int) throws {
        sequence += 1
        var bigEndian = sequence.bigEndian
        try withUnsafeMutableBytes(of: &bigEndian) { key in
            var k = MDB_val(mv_size: 8, mv_data: key.baseAddress)
            var v = MDB_val(mv_size: size, mv_data: entryBytes)
            try lmdbCheck(mdb_put(txn, journal, &k, &v, UInt32(MDB_APPEND)), "mdb_put(journal)")
        }
    }
}
