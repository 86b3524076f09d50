/// Applying one journal entry to this store's records, as replication and replay do.
///
/// The change goes through will-change / did-change, so this store journals it (stamped with
/// ``WriteTransaction/origin``), and must keep this store's catalog: a key its closed kind does
/// not declare, or a value of another type than declared, is refused (``catalogRefusal(of:)``).
/// The per-process rules — hooks and validators — are not run again: the store that made the
/// change ran them.
extension WriteTransaction {
    /// Applies `entry`.
    /// - Returns: nil when applied, or what in this store disagrees with the entry (the record to
    ///   insert exists, the record to change is missing, an index is out of range…); nothing of the
    ///   entry is applied then, and the caller abandons the transaction.
    func apply(_ entry: JournalEntry) throws -> String? {
        if entry.change == .kindDeclared {
            var changed = false
            return try applyDeclaration(entry, changed: &changed)
        }
        if let refused = try catalogRefusal(of: entry) { return refused }
        let ref = entry.ref
        modificationTime = entry.timestamp  // keys' modification times are the source's
        defer { modificationTime = nil }
        switch entry.change {
        case .recordInserted:
            // A record read as bytes (checked then: it decodes, no top-level nulls) is stored and
            // journaled as it is; observers and modification times decode it if they need it.
            let new: Value?
            let encoded: [UInt8]
            if let record = entry.encodedNewRecord {
                (new, encoded) = (nil, record)
            } else {
                guard case .dictionary(let values)? = entry.newValue else { return "the inserted record's value is not a dictionary" }
                let checked = values.values.contains(where: \.isNull) ? values.filter { !$0.value.isNull } : values
                (new, encoded) = (.dictionary(checked), RecordCodec.encode(checked))
            }
            // A source written before the record limit: refused as the bytes path refuses it.
            if encoded.count > KeyValueCodingError.maximumRecordSize {
                throw KeyValueCodingError.recordTooLarge(size: encoded.count, keyPath: nil, ref: ref)
            }
            let indexed = try maintainedIndexes(ofKind: ref.kind)
            let indexChanges: IndexChanges? = indexed.isEmpty ? nil : try encoded.withUnsafeBytes { bytes in
                try self.indexChanges(in: indexed, of: ref, changedKey: nil, old: nil, new: topValues(in: bytes, of: ref))
            }
            announce(ref, keyPath: nil, change: .recordInserted)
            guard try transaction.insert(StoreLayout.recordKey(ref), encoded, in: databases.records) else {
                return "\(ref) to insert already exists"
            }
            try apply(indexChanges)
            try adjustCount(of: ref.kind, by: 1)
            try journal(.recordInserted, ref: ref, keyPath: nil, old: nil, new: new, encodedNew: encoded)
        case .recordDeleted:
            guard try contains(ref) else { return "\(ref) to delete does not exist" }
            try delete(ref)
        case .setting:
            guard try contains(ref) else { return "\(ref) to change does not exist" }
            // Key paths in NFC, as this store writes them (an entry from an older store may differ).
            guard let keyPath = entry.keyPath.map(UTF8Text.nfc) else { return "a setting without a key path" }
            let keys = KeyValuePath.keys(of: keyPath)
            let new = entry.newValue?.isNull == true ? nil : entry.newValue
            if keys.count == 1 { try replaceTracked(new, forKey: keyPath, of: ref); return nil }
            return try applyNestedSetting(new, keys: keys, keyPath: keyPath, of: ref)
        case .insertion, .removal, .replacement:
            return try applyArrayChange(entry)
        case .kindDeclared:
            break
        }
        return nil
    }

    /// Sets a value inside the nested dictionaries of one key.
    private func applyNestedSetting(_ new: Value?, keys: [String], keyPath: String, of ref: RecordRef) throws -> String? {
        guard case .dictionary(let top)? = try storedValue(forKey: keys[0], of: ref) else {
            return "\(ref) holds no dictionary at '\(keys[0])' for '\(keyPath)'"
        }
        guard let (newTop, old) = Self.replacing(new, at: keys.dropFirst(), in: top) else {
            return "\(ref) has no dictionary on the way to '\(keyPath)'"
        }
        if old == new { return nil }
        let trackKey = ChangeTracker.Key(ref: ref, keyPath: keyPath)
        willChange(trackKey, oldValue: old, stored: true)
        try replaceStoredValue(.dictionary(newTop), forKey: keys[0], of: ref)
        if let closed = try tracker.didChange(trackKey) { try journalIfChanged(closed, key: trackKey, new: new) }
        return nil
    }

    /// `dictionary` with the value at `keys` replaced (nil removes it), and the old value; nil
    /// when an intermediate is not a dictionary.
    private static func replacing(_ value: Value?, at keys: ArraySlice<String>, in dictionary: [String: Value]) -> ([String: Value], Value?)? {
        var dictionary = dictionary
        let key = keys.first!
        if keys.count == 1 {
            let old = dictionary[key]
            dictionary[key] = value
            return (dictionary, old)
        }
        guard case .dictionary(let inner)? = dictionary[key],
              let (newInner, old) = replacing(value, at: keys.dropFirst(), in: inner) else { return nil }
        dictionary[key] = .dictionary(newInner)
        return (dictionary, old)
    }

    /// Inserts, removes or replaces elements of the array at one key, at the entry's indexes.
    private func applyArrayChange(_ entry: JournalEntry) throws -> String? {
        let ref = entry.ref
        guard let key = entry.keyPath.map(UTF8Text.nfc), let indexes = entry.indexes else { return "an index-level change without a key or indexes" }
        guard try contains(ref) else { return "\(ref) to change does not exist" }
        guard case .array(let current)? = try storedValue(forKey: key, of: ref) else {
            return "\(ref) holds no array at '\(key)'"
        }
        var array = current
        func elements(_ value: Value?) -> [Value]? {
            guard case .array(let elements)? = value, elements.count == indexes.count else { return nil }
            return elements
        }
        func outOfRange(_ index: Int, _ count: Int) -> String {
            "index \(index) is out of range for the \(count) elements of '\(key)' of \(ref)"
        }
        switch entry.change {
        case .insertion:
            guard let values = elements(entry.newValue) else { return "an insertion whose new elements do not match its indexes" }
            for (value, index) in zip(values, indexes) {
                guard index >= 0, index <= array.count else { return outOfRange(index, array.count) }
                array.insert(value, at: index)
            }
        case .removal:
            guard Set(indexes).count == indexes.count else { return "a removal that names an index twice" }
            for index in indexes where index < 0 || index >= array.count { return outOfRange(index, array.count) }
            for index in indexes.sorted().reversed() { array.remove(at: index) }
        default:
            guard let values = elements(entry.newValue) else { return "a replacement whose new elements do not match its indexes" }
            for (value, index) in zip(values, indexes) {
                guard index >= 0, index < array.count else { return outOfRange(index, array.count) }
                array[index] = value
            }
        }
        let trackKey = ChangeTracker.Key(ref: ref, keyPath: key)
        willChange(trackKey, oldValue: .array(current), stored: true, change: entry.change, indexes: indexes)
        try replaceStoredValue(.array(array), forKey: key, of: ref)
        if try tracker.didChange(trackKey) != nil {
            try journal(entry.change, ref: ref, keyPath: key, old: entry.oldValue, new: entry.newValue, indexes: indexes)
        }
        return nil
    }
}
