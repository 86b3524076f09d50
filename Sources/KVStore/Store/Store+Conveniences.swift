/// One-call forms of the transaction API: each runs in its own transaction (and a write in its
/// own commit). Group related changes in one ``Store/write(_:)-2jclw`` instead.
extension Store {
    /// Inserts a record with a generated id.
    /// - Returns: its reference.
    @discardableResult
    public func insert(_ values: [String: Value], kind: String) throws -> RecordRef {
        try write { try $0.insert(values, kind: kind) }
    }

    /// Inserts a record under `ref`.
    public func insert(_ values: [String: Value], as ref: RecordRef) throws {
        try write { try $0.insert(values, as: ref) }
    }

    /// Deletes a record.
    public func delete(_ ref: RecordRef) throws {
        try write { try $0.delete(ref) }
    }

    /// The record's values, or nil.
    public func record(_ ref: RecordRef) throws -> [String: Value]? {
        try read { try $0.record(ref) }
    }

    /// Every record of `kind`, in id order.
    public func records(ofKind kind: String) throws -> [Record] {
        try read { try $0.records(ofKind: kind) }
    }

    /// The number of records of `kind`.
    public func count(ofKind kind: String) throws -> Int {
        try read { try $0.count(ofKind: kind) }
    }

    /// See ``ReadTransaction/value(forKey:of:)``.
    public func value(forKey key: String, of ref: RecordRef) throws -> Value? {
        try read { try $0.value(forKey: key, of: ref) }
    }

    /// See ``ReadTransaction/value(forKeyPath:of:)``.
    public func value(forKeyPath keyPath: String, of ref: RecordRef) throws -> Value? {
        try read { try $0.value(forKeyPath: keyPath, of: ref) }
    }

    /// See ``ReadTransaction/value(forKeyPath:ofKind:)``.
    public func value(forKeyPath keyPath: String, ofKind kind: String) throws -> Value? {
        try read { try $0.value(forKeyPath: keyPath, ofKind: kind) }
    }

    /// See ``ReadTransaction/dictionaryWithValues(forKeys:of:)``.
    public func dictionaryWithValues(forKeys keys: [String], of ref: RecordRef) throws -> [String: Value] {
        try read { try $0.dictionaryWithValues(forKeys: keys, of: ref) }
    }

    /// See ``WriteTransaction/setValue(_:forKey:of:)``.
    public func setValue(_ value: Value?, forKey key: String, of ref: RecordRef) throws {
        try write { try $0.setValue(value, forKey: key, of: ref) }
    }

    /// See ``WriteTransaction/setValue(_:forKeyPath:of:)``.
    public func setValue(_ value: Value?, forKeyPath keyPath: String, of ref: RecordRef) throws {
        try write { try $0.setValue(value, forKeyPath: keyPath, of: ref) }
    }

    /// See ``WriteTransaction/removeValue(forKey:of:)``.
    public func removeValue(forKey key: String, of ref: RecordRef) throws {
        try write { try $0.removeValue(forKey: key, of: ref) }
    }

    /// See ``WriteTransaction/setValuesForKeys(_:of:)``: all keys in one commit.
    public func setValuesForKeys(_ values: [String: Value], of ref: RecordRef) throws {
        try write { try $0.setValuesForKeys(values, of: ref) }
    }

    /// Journal entries from sequence `from` on, at most `limit`.
    public func journalEntries(from sequence: UInt64 = 1, limit: Int? = nil) throws -> [JournalEntry] {
        try read { try $0.journalEntries(from: sequence, limit: limit) }
    }
}
