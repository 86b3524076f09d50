/// What ``Store/verify(progress:)`` checks of the modification times kept in `meta`.
extension Store {
    /// Each `stamps/` entry names a record that exists and decodes: corrupt times make every
    /// write of their record fail, and times left for a missing record would date a new one.
    func checkModificationTimes(_ txn: ReadTransaction, into report: inout VerificationReport) throws {
        let prefix = StoreLayout.MetaKey.stampsPrefix
        try txn.transaction.scan(databases.meta, prefix: prefix) { key, value in
            guard let ref = StoreLayout.ref(fromKey: UnsafeRawBufferPointer(rebasing: key[prefix.count...])) else {
                report.add("a modification-times key does not name a record: \(Array(key.prefix(80)))")
                return true
            }
            if StampCodec.decode(value) == nil {
                report.add("the modification times of \(ref) are corrupt")
            } else if try txn.withRecordBytes(ref, { $0 == nil }) {
                report.add("modification times are kept for \(ref), which does not exist")
            }
            return true
        }
    }
}
