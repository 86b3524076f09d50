import LMDB

/// `@sum` and `@avg` of one stored key over a kind's records, read in place.
extension ReadTransaction {
    /// `@sum.key` or `@avg.key` over every record of `kind`, each record's `key` read from its
    /// encoding where the scan finds it (no `RecordRef`, no key-path evaluation, the key put in
    /// NFC once) and added in `Int64` (``IntTotal``). Nil, the result left to the general path,
    /// when that path could differ: kinds registered in this process (their hooks), a closed kind
    /// that does not declare `key` (its error), a value that is not an int, a record that does
    /// not decode (its error), a sum past `Int64`.
    func intTotal(_ op: CollectionOperator, ofKey key: String, ofKind kind: String) throws -> Value?? {
        guard op == .sum || op == .avg, !store.hasRegisteredKinds else { return nil }
        try RecordRef.validate(kind: kind)
        if let rules = try effectiveKind(named: kind), rules.isClosed, !rules.declares(key) { return nil }
        let nfcKey = UTF8Text.nfc(key)
        let prefix = StoreLayout.kindPrefix(kind)
        var total = IntTotal()
        try transaction.scan(databases.records, prefix: prefix) { recordKey, record in
            // The general path passes over a record whose key names no valid reference.
            guard StoreLayout.isRecordKey(recordKey, idFrom: prefix.count) else { return true }
            do { return total.add(try RecordCodec.value(forNFCKey: nfcKey, in: record)) } catch {
                total.stop()
                return false
            }
        }
        return total.result(op)
    }
}
