/// What ``Store/verify(progress:)`` checks of the `sync` database (``SyncStateStorage``).
extension Store {
    /// Each entry decodes and belongs to a record of a kind the store syncs; each synced record's
    /// state agrees with it: the record exists iff its state says so, holds exactly the keys its
    /// state says are present (a stamp for a key it does not hold must be a tombstone, or dead
    /// under the record's deletion), and every record of a kind that syncs has a state.
    func checkSyncState(_ txn: ReadTransaction, into report: inout VerificationReport) throws {
        let configuration: SyncConfiguration?
        let catalog = try txn.kindCatalog()
        do { configuration = try catalog.sync } catch {
            report.add(error.message)
            return
        }
        var checked = Set<RecordRef>()
        if let db = databases.sync {
            var group: (ref: RecordRef, prefix: [UInt8])?
            try txn.transaction.scan(db) { key, _ in
                if let current = group, key.starts(with: current.prefix) { return true }
                guard let ref = SyncStateStorage.ref(fromKey: key) else {
                    report.add("a sync state key does not name a record: \(Array(key.prefix(80)))")
                    return true
                }
                group = (ref, SyncStateStorage.prefix(ref))
                checked.insert(ref)
                if configuration?.syncs(ref.kind) != true {
                    report.add("sync state is kept for \(ref), whose kind does not sync")
                } else {
                    try check(ref, in: txn, into: &report)
                }
                return true
            }
        }
        guard let configuration else { return }
        for (kind, _) in try txn.kinds() where configuration.syncs(kind) {
            for ref in try txn.refs(ofKind: kind) where !checked.contains(ref) {
                report.add("record \(ref) of a kind that syncs has no sync state")
            }
        }
    }

    /// Compares the state of `ref` with the record.
    private func check(_ ref: RecordRef, in txn: ReadTransaction, into report: inout VerificationReport) throws {
        let state: SyncRecordState
        do { state = try txn.syncState(of: ref) } catch let error as StoreError {
            report.add(error.message)
            return
        }
        let values: [String: Value]?
        do { values = try txn.record(ref) } catch { return }  // a record that does not decode is reported with the records
        if state.exists != (values != nil) {
            report.add(values == nil ? "the sync state of \(ref) says it exists, but there is no such record" : "the sync state of \(ref) says it was deleted, but the record exists")
        }
        let held = Set(values?.keys.map { $0 } ?? [])
        for key in held.union(state.keys.keys).sorted(by: UTF8Text.precedes) where held.contains(key) != state.isPresent(key) {
            if held.contains(key) {
                report.add("record \(ref) holds key '\(key)', which its sync state says is absent (\(state.keys[key].map { $0.isSet ? "set before the record's deletion" : "removed at \($0.stamp)" } ?? "no stamp"))")
            } else {
                report.add("the sync state of \(ref) says key '\(key)' is present (set at \(state.keys[key]!.stamp)), but the record does not hold it")
            }
        }
    }
}
