/// A journal entry's new value, kept encoded when replication passes an inserted record through.
extension JournalEntry {
    /// How an entry holds its new value.
    enum NewValue: Sendable {
        case decoded(Value?)
        /// A whole record in ``RecordCodec``'s encoding, checked when it was read: it decodes, and
        /// it has no `null` at its top level (a record holds none).
        case encodedRecord([UInt8])

        var value: Value? {
            switch self {
            case .decoded(let value): return value
            case .encodedRecord(let bytes):
                // Checked when read (``RecordCodec/isCanonicalRecord(_:)``): it decodes.
                guard let record = try? RecordCodec.decode(bytes) else {
                    preconditionFailure("a record checked when read no longer decodes")
                }
                return .dictionary(record)
            }
        }
    }

    /// The inserted record's encoding, when the entry was read with it left encoded; nil otherwise.
    var encodedNewRecord: [UInt8]? {
        if case .encodedRecord(let bytes) = newStorage { return bytes }
        return nil
    }

    /// Whether the entry has a new value, without decoding it.
    var hasNewValue: Bool {
        switch newStorage {
        case .decoded(let value): value != nil
        case .encodedRecord: true
        }
    }

    /// Whether two entries have equal fields (a record left encoded compares by its decoded value).
    public static func == (lhs: JournalEntry, rhs: JournalEntry) -> Bool {
        lhs.sequence == rhs.sequence && lhs.commitID == rhs.commitID && lhs.timestamp == rhs.timestamp
            && lhs.origin == rhs.origin && lhs.ref == rhs.ref && lhs.keyPath == rhs.keyPath
            && lhs.change == rhs.change && lhs.oldValue == rhs.oldValue && lhs.newValue == rhs.newValue
            && lhs.indexes == rhs.indexes && lhs.isDerived == rhs.isDerived
    }

    /// Hashes the fields that ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(sequence)
        hasher.combine(commitID)
        hasher.combine(timestamp)
        hasher.combine(origin)
        hasher.combine(ref)
        hasher.combine(keyPath)
        hasher.combine(change)
        hasher.combine(oldValue)
        hasher.combine(newValue)
        hasher.combine(indexes)
        hasher.combine(isDerived)
    }
}
