import Foundation

extension ReadTransaction {
    /// When each key of the record last changed, and where; tombstones for removed keys included.
    /// Empty for a record of a kind that does not track modification times.
    ///
    /// ```swift
    /// try txn.modificationTimes(of: ada)["name"]?.time   // when the name last changed
    /// ```
    /// - Throws: ``StoreError/Code/corrupt`` when the stored times do not decode.
    public func modificationTimes(of ref: RecordRef) throws -> [String: KeyStamp] {
        try transaction.withValue(forKey: StoreLayout.MetaKey.stamps(ref), in: databases.meta) { bytes in
            guard let bytes else { return [:] }
            guard let stamps = StampCodec.decode(bytes) else {
                throw StoreError(.corrupt, "the modification times of \(ref) are corrupt", path: store.path)
            }
            return stamps
        }
    }

    /// The record's values with their modification stamps, as another store merges them; nil
    /// when there is no such record.
    public func stampedRecord(_ ref: RecordRef) throws -> StampedRecord? {
        guard let values = try record(ref) else { return nil }
        return StampedRecord(values: values, stamps: try modificationTimes(of: ref))
    }
}

extension WriteTransaction {
    /// Records when the keys `entry` changed (the hook ``journal(_:ref:keyPath:old:new:indexes:isDerived:encodedNew:)``
    /// calls), for kinds that track modification times: a record's insertion stamps all its keys,
    /// its deletion drops its stamps, any other change stamps the top-level key it changed (a
    /// removal leaves the stamp as a tombstone). The stamp is the commit's time — or the source
    /// entry's, when replication applies it — and the store where the change was first made.
    func stampModification(of entry: JournalEntry) throws {
        guard !entry.isDerived, entry.change != .kindDeclared, let kind = try effectiveKind(named: entry.ref.kind), kind.tracksModificationTimes else { return }
        let stamp = KeyStamp(time: modificationTime ?? entry.timestamp, origin: entry.origin?.storeID ?? store.id)
        switch entry.change {
        case .recordDeleted:
            try transaction.delete(StoreLayout.MetaKey.stamps(entry.ref), in: databases.meta)
        case .recordInserted:
            let keys = entry.newValue?.dictionaryValue?.keys.map { $0 } ?? []
            try saveModificationTimes(Dictionary(uniqueKeysWithValues: keys.map { ($0, stamp) }), of: entry.ref)
        default:
            guard let keyPath = entry.keyPath else { return }
            let key = keyPath.firstIndex(of: ".").map { String(keyPath[..<$0]) } ?? keyPath
            var stamps = try modificationTimes(of: entry.ref)
            stamps[key] = stamp
            try saveModificationTimes(stamps, of: entry.ref)
        }
    }

    func saveModificationTimes(_ stamps: [String: KeyStamp], of ref: RecordRef) throws {
        try transaction.put(StoreLayout.MetaKey.stamps(ref), StampCodec.encode(stamps), in: databases.meta)
    }
}
