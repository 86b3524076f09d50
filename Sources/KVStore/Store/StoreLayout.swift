import Foundation
import LMDB

/// How a store lays out its data in LMDB (format versions 1 to 4).
///
/// Named databases:
/// - `records`: key `kind 0x00 id` (UTF-8), value a ``RecordCodec`` encoding of the record's dictionary;
/// - `journal`: key the entry's sequence as a big-endian UInt64, value a ``JournalCodec`` encoding;
/// - `meta`: UTF-8 string keys, every one of them in ``StoreLayout/MetaKey`` with its value;
/// - `indexes`: the secondary indexes' entries, each key an index's 4-byte number, an encoded
///   tuple of values (``IndexKeyEncoding``) and a record id (``IndexEntryLayout``), after a directory of
///   the indexes built under number 0 (``IndexDirectory``), and before the counts of their
///   leading prefixes under number `FF FF FF FF` (``IndexPrefixCounts``). Stores made before it get it when
///   first opened for writing; a store opened read-only without it has no index built;
/// - `sync`: the last-writer-wins state of records of kinds that sync (``SyncStateStorage``),
///   empty in a store that does not sync; stores made before it get it as `indexes`.
enum StoreLayout {
    /// The format new stores are written in: 1.
    static let formatVersion: UInt32 = 1
    /// The format of a store whose kind catalog was ever written (`catalog/` entries in meta,
    /// `kindDeclared` journal entries): 2. The first declaration raises a store to it, so that a
    /// kvstore that knows no catalog — which would write records its rules refuse, and cannot
    /// read the journal's `kindDeclared` entries — refuses the store (``StoreError/Code/newerFormat``)
    /// instead; a store that never declares a kind stays at 1, readable by those too.
    static let catalogFormatVersion: UInt32 = 2
    /// The format of a store with an index whose irregular entries are counted (``IndexStatistics``,
    /// flagged in ``IndexDirectory``): 3. Building an index raises a store to it, so that a
    /// kvstore that does not keep the counts — whose writes would leave them wrong, and which
    /// reads such an index as not built, leaving its entries stale — refuses the store.
    static let indexStatisticsFormatVersion: UInt32 = 3
    /// The format of a store with an index whose records are counted under each of its leading
    /// prefixes (``IndexPrefixCounts``, flagged in ``IndexDirectory``): 4. Building an index
    /// raises a store to it, so that a kvstore that does not keep the counts — whose writes would
    /// leave them wrong — refuses the store.
    static let indexPrefixCountsFormatVersion: UInt32 = 4
    /// The format of a store that was ever configured to sync (meta `sync/config`): 4 as well
    /// (both landed in one release). A kvstore that knows no sync would change its records without
    /// keeping their sync state, or stamping its journal entries, and the stores syncing with it
    /// would silently diverge: it refuses the store instead. A store that never syncs stays at its
    /// format.
    static let syncFormatVersion: UInt32 = 4
    /// The newest format this build reads.
    static let newestFormatVersion: UInt32 = max(indexPrefixCountsFormatVersion, syncFormatVersion)

    static let records = "records"
    static let journal = "journal"
    static let meta = "meta"
    static let indexes = "indexes"
    static let sync = "sync"

    /// The records-database key of `ref`.
    static func recordKey(_ ref: RecordRef) -> [UInt8] {
        var key = [UInt8]()
        key.reserveCapacity(ref.kind.utf8.count + 1 + ref.id.utf8.count)
        key.append(contentsOf: ref.kind.utf8)
        key.append(0)
        key.append(contentsOf: ref.id.utf8)
        return key
    }

    /// The prefix shared by every record key of `kind`.
    static func kindPrefix(_ kind: String) -> [UInt8] { Array(kind.utf8) + [0] }

    /// The reference a records-database key stands for, or nil when the key is malformed.
    static func ref(fromKey key: UnsafeRawBufferPointer) -> RecordRef? {
        guard let zero = key.firstIndex(of: 0) else { return nil }
        let kind = String(decoding: key[..<zero], as: UTF8.self)
        let id = String(decoding: key[(zero + 1)...], as: UTF8.self)
        return try? RecordRef(kind: kind, id: id)
    }

    static func sequenceKey(_ sequence: UInt64) -> [UInt8] {
        withSequenceKey(sequence, Array.init)
    }

    /// The journal key of `sequence` (its 8 bytes big-endian), in temporary memory.
    static func withSequenceKey<R>(_ sequence: UInt64, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withUnsafeBytes(of: sequence.bigEndian, body)
    }

    static func sequence(fromKey key: UnsafeRawBufferPointer) -> UInt64? {
        guard key.count == 8 else { return nil }
        return key.reduce(0) { $0 << 8 | UInt64($1) }
    }

    static func uint64(_ value: UInt64) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }

    static func uint64(from bytes: UnsafeRawBufferPointer?) -> UInt64? {
        guard let bytes, bytes.count == 8 else { return nil }
        return UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self))
    }

    static func uint32(from bytes: UnsafeRawBufferPointer?) -> UInt32? {
        guard let bytes, bytes.count == 4 else { return nil }
        return UInt32(littleEndian: bytes.loadUnaligned(as: UInt32.self))
    }
}

extension LMDB.Transaction {
    /// The `UInt64 LE` stored under `key` in `db` (a `meta` counter), or nil when there is none or
    /// it is not 8 bytes.
    func uint64(forKey key: [UInt8], in db: Database) throws -> UInt64? {
        try withValue(forKey: key, in: db) { StoreLayout.uint64(from: $0) }
    }
}

/// The named databases of an open store.
struct StoreDatabases: Sendable {
    let records: Database
    let journal: Database
    let meta: Database
    /// Nil only in a store opened read-only that was made before indexes (none is built).
    let indexes: Database?
    /// The sync state of records of kinds that sync; nil only in a store opened read-only that
    /// was made before sync (none is kept).
    let sync: Database?
}
