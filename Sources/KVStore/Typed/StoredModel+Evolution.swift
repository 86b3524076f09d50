/// What a model makes of records written by other versions of the app: older key names
/// (``StoredModel/keyAliases``) and values for keys added since (``StoredModel/defaultValues``).
extension StoredModel {
    /// `values` as this version of the model reads them: a key the record lacks takes the value
    /// of its first older name the record holds, else its default.
    static func upgraded(_ values: [String: Value]) -> [String: Value] {
        let aliases = keyAliases, defaults = defaultValues
        if aliases.isEmpty && defaults.isEmpty { return values }
        var values = values
        for (key, older) in aliases where values[key] == nil {
            if let name = older.first(where: { values[$0] != nil }) { values[key] = values[name] }
        }
        for (key, value) in defaults where values[key] == nil { values[key] = value }
        return values
    }

    /// The value of the top-level `key` for a record that lacks it: its older name's, or its
    /// default; nil for a key path (`address.city`) or a key with neither.
    static func upgradedValue(forKey key: String, in txn: ReadTransaction, of ref: RecordRef) throws -> Value? {
        guard !key.contains(".") else { return nil }
        for name in keyAliases[key] ?? [] {
            if let value = try txn.storedValue(forKey: name, of: ref) { return value }
        }
        return defaultValues[key]
    }

    /// The older names of the keys in `keys`: a save of the model removes them (its data lives
    /// under the current names now).
    static func olderNames(of keys: Set<String>) -> Set<String> {
        Set(keyAliases.filter { keys.contains($0.key) }.values.joined())
    }
}
