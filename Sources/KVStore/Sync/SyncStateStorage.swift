import Foundation

/// How the `sync` database holds a ``SyncRecordState``: for a record of a kind that syncs, under
/// its record key (`kind` 0x00 `id`) and 0x00, one entry with the record's stamps (nothing more
/// in the key: no top-level key is empty) and one entry per top-level key (the key's UTF-8 bytes
/// after the 0x00). Ids hold no control character, so `kind 0x00 id 0x00` starts the entries of
/// exactly one record.
///
/// Values (a stamp is 24 bytes: ``HybridTime/packed`` big-endian, then the store id's 16 bytes):
/// - a key's entry: one byte, 1 for a set and 0 for a removal (a tombstone), then its stamp;
/// - the record's entry: one byte of flags (1: `created` follows, 2: `deleted` follows), then
///   those stamps in that order.
enum SyncStateStorage {
    /// The prefix of a record's entries, which is also the key of its record-level entry.
    static func prefix(_ ref: RecordRef) -> [UInt8] { StoreLayout.recordKey(ref) + [0] }

    /// The key of a top-level key's entry.
    static func key(_ key: String, of ref: RecordRef) -> [UInt8] { prefix(ref) + Array(key.utf8) }

    /// The record whose state an entry's key is part of; nil when the key is malformed.
    static func ref(fromKey key: UnsafeRawBufferPointer) -> RecordRef? {
        guard let first = key.firstIndex(of: 0), let second = key[(first + 1)...].firstIndex(of: 0),
              let ref = StoreLayout.ref(fromKey: UnsafeRawBufferPointer(rebasing: key[..<second])),
              StoreLayout.recordKey(ref).elementsEqual(key[..<second]) else { return nil }
        return ref
    }

    /// The longest key LMDB takes (its default `MDB_MAXKEYSIZE`).
    static let maxKeyLength = 511

    static func encode(_ stamp: SyncStamp, into bytes: inout [UInt8]) {
        withUnsafeBytes(of: stamp.time.packed.bigEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: stamp.store.uuid) { bytes.append(contentsOf: $0) }
    }

    static func decodeStamp(_ bytes: UnsafeRawBufferPointer) -> SyncStamp? {
        guard bytes.count == 24 else { return nil }
        let packed = bytes.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let b = Array(bytes.dropFirst(8))
        let store = UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
        return SyncStamp(time: HybridTime(packed: packed), store: store)
    }

    static func encode(_ key: SyncRecordState.KeyStamp) -> [UInt8] {
        var bytes: [UInt8] = [key.isSet ? 1 : 0]
        encode(key.stamp, into: &bytes)
        return bytes
    }

    static func decodeKey(_ bytes: UnsafeRawBufferPointer) -> SyncRecordState.KeyStamp? {
        guard bytes.count == 25, bytes[0] <= 1, let stamp = decodeStamp(UnsafeRawBufferPointer(rebasing: bytes.dropFirst())) else { return nil }
        return .init(stamp: stamp, isSet: bytes[0] == 1)
    }

    static func encodeRecord(created: SyncStamp?, deleted: SyncStamp?) -> [UInt8] {
        var bytes: [UInt8] = [(created != nil ? 1 : 0) | (deleted != nil ? 2 : 0)]
        if let created { encode(created, into: &bytes) }
        if let deleted { encode(deleted, into: &bytes) }
        return bytes
    }

    static func decodeRecord(_ bytes: UnsafeRawBufferPointer) -> (created: SyncStamp?, deleted: SyncStamp?)? {
        guard let flags = bytes.first, flags & ~3 == 0, bytes.count == 1 + 24 * flags.nonzeroBitCount else { return nil }
        var offset = 1
        func next(_ present: Bool) -> SyncStamp? {
            guard present else { return nil }
            defer { offset += 24 }
            return decodeStamp(UnsafeRawBufferPointer(rebasing: bytes[offset ..< offset + 24]))
        }
        let created = next(flags & 1 != 0)
        return (created, next(flags & 2 != 0))
    }
}

extension ReadTransaction {
    /// The sync state of `ref` (empty when none is kept).
    /// - Throws: ``StoreError/Code/corrupt`` naming the record when an entry does not decode.
    func syncState(of ref: RecordRef) throws -> SyncRecordState {
        var state = SyncRecordState()
        guard let db = databases.sync else { return state }
        let prefix = SyncStateStorage.prefix(ref)
        try transaction.scan(db, prefix: prefix) { key, value in
            if key.count == prefix.count {
                guard let record = SyncStateStorage.decodeRecord(value) else { throw corruptSyncState(ref, key: nil) }
                (state.created, state.deleted) = record
            } else {
                let name = String(decoding: key.dropFirst(prefix.count), as: UTF8.self)
                guard let stamp = SyncStateStorage.decodeKey(value) else { throw corruptSyncState(ref, key: name) }
                state.keys[name] = stamp
            }
            return true
        }
        return state
    }

    func corruptSyncState(_ ref: RecordRef, key: String?) -> StoreError {
        StoreError(.corrupt, "the sync state of \(ref)\(key.map { " key '\($0)'" } ?? "") is corrupt", path: store.path)
    }
}

extension WriteTransaction {
    /// Writes `new`, the state of `ref` that was `old`: only the entries that differ.
    func saveSyncState(_ new: SyncRecordState, was old: SyncRecordState, of ref: RecordRef) throws {
        guard let db = databases.sync else { throw StoreError(.readOnly, "the store has no sync database", path: store.path) }
        let prefix = SyncStateStorage.prefix(ref)
        if new.created != old.created || new.deleted != old.deleted {
            try transaction.put(prefix, SyncStateStorage.encodeRecord(created: new.created, deleted: new.deleted), in: db)
        }
        for (key, stamp) in new.keys where old.keys[key] != stamp {
            let entryKey = prefix + Array(key.utf8)
            guard entryKey.count <= SyncStateStorage.maxKeyLength else {
                throw KeyValueCodingError.syncKeyTooLong(key, ref: ref)
            }
            try transaction.put(entryKey, SyncStateStorage.encode(stamp), in: db)
        }
        for key in old.keys.keys where new.keys[key] == nil {
            try transaction.delete(prefix + Array(key.utf8), in: db)
        }
    }
}
