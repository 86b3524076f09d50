import LMDB

/// What ``Store/verify(progress:)`` checks of the `indexes` database.
extension Store {
    /// Each built index's entries, the counts of its irregular ones (``IndexStatistics``) and of
    /// the records under its leading prefixes (``IndexPrefixCounts``) are exactly those its
    /// records give: an entry missing, one whose flags or ids disagree with the
    /// record (damaged), one no record gives (extra), one of no built index, counts that differ,
    /// and a directory entry that does not decode are findings; so are an index declared but not
    /// built, and one built but not declared. Reads each record's indexed keys
    /// once per index, and the database once; looks for extra entries only when the counts
    /// disagree or an entry was missing or damaged.
    func checkIndexes(_ txn: ReadTransaction, into report: inout VerificationReport) throws {
        guard let db = databases.indexes else { return }
        let built = try txn.builtIndexes()
        let stored = try countEntries(txn, db, built: built, into: &report)
        for index in built {
            let before = report.findings.count + report.unlisted
            let (expected, undecodableSeen, irregular, prefixes) = try checkRecordEntries(of: index, txn, db, into: &report)
            try checkStatistics(of: index, irregular, txn, into: &report)
            try checkPrefixCounts(of: index, prefixes, txn, db, into: &report)
            let undecodable = stored.undecodable[index.number, default: 0] - undecodableSeen
            if undecodable > 0 {
                report.add("index \(index.qualifiedName) has \(undecodable) entr\(undecodable == 1 ? "y" : "ies") of no record that do\(undecodable == 1 ? "es" : "") not decode")
            }
            if expected != stored.items[index.number, default: 0] || report.findings.count + report.unlisted != before {
                try findExtraEntries(of: index, txn, into: &report)
            }
        }
        try checkPrefixCountAreas(built: built, txn, db, into: &report)
        let kinds = Set(try txn.kinds().map(\.kind)).union(built.map(\.kind)).union(try txn.kindCatalog().names)
        for kind in kinds.sorted(by: UTF8Text.precedes) {
            let declared: [KindIndex]
            do {
                declared = try txn.indexes(ofKind: kind)
            } catch let error as StoreError where error.code == .corrupt || error.code == .newerFormat {
                continue  // a declaration that cannot be read: the catalog's check reports it
            }
            for index in declared where !built.contains(where: { $0.kind == kind && $0.index == index }) {
                report.add("index \(kind).\(index.description) is declared but not built")
            }
            for index in built where index.kind == kind && !declared.contains(index.index) {
                report.add("index \(index.qualifiedName) is built but not declared")
            }
        }
    }

    /// Counts each built index's records, and its entries that do not decode, in one pass of the
    /// database, reporting directory entries that do not decode and entries of no built index.
    private func countEntries(
        _ txn: ReadTransaction, _ db: Database, built: [BuiltIndex], into report: inout VerificationReport
    ) throws -> (items: [UInt32: Int], undecodable: [UInt32: Int]) {
        let numbers = Set(built.map(\.number))
        var counts: [UInt32: Int] = [:], orphans: [UInt32: Int] = [:], undecodable: [UInt32: Int] = [:]
        try txn.transaction.scan(db) { key, value in
            let number = key.count >= 4 ? key.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) } : 0
            if number == IndexPrefixCounts.areaNumber {
                // Prefix counts: checked against each index's records.
            } else if number == 0 {
                if key.count > 4, IndexDirectory.decode(key: key, value: value) == nil {
                    report.add("an index directory entry does not decode: \(Array(key.prefix(80)))")
                }
            } else if !numbers.contains(number) {
                orphans[number, default: 0] += 1
            } else if key.count == 4 {
                // The index's statistics: checked against its records.
            } else if let entry = IndexEntryLayout.decode(key: key, value: value, prefixLength: 4) {
                counts[number, default: 0] += entry.items.count
            } else {
                undecodable[number, default: 0] += 1
            }
            return true
        }
        for (number, count) in orphans.sorted(by: { $0.key < $1.key }) {
            report.add("the indexes database has \(count) entr\(count == 1 ? "y" : "ies") of no built index (number \(number))")
        }
        return (counts, undecodable)
    }

    /// Reports statistics of the index's irregular entries that are not `irregular`, the counts its
    /// records give (when the store keeps them for the index).
    private func checkStatistics(
        of index: BuiltIndex, _ irregular: IndexStatistics, _ txn: ReadTransaction, into report: inout VerificationReport
    ) throws {
        guard index.countsIrregularEntries else { return }
        guard let stored = try txn.storedStatistics(key: IndexStatistics.key(index.prefix), keyPaths: index.index.keyPaths.count) else {
            report.add("index \(index.qualifiedName) has statistics that do not decode")
            return
        }
        if stored != irregular {
            report.add("index \(index.qualifiedName) has damaged statistics: they count \(stored); its records give \(irregular)")
        }
    }

    /// Checks that each record of the index's kind has its entries.
    /// - Returns: how many record entries (ids under keys) the records give, how many of the keys
    ///   they give hold a value that does not decode, the counts of their irregular entries, and
    ///   the records under each leading prefix (``IndexPrefixCounts``).
    private func checkRecordEntries(
        of index: BuiltIndex, _ txn: ReadTransaction, _ db: Database, into report: inout VerificationReport
    ) throws -> (expected: Int, undecodable: Int, irregular: IndexStatistics, prefixes: [[UInt8]: Int]) {
        var expected = 0, undecodable = 0
        var irregular = IndexStatistics(keyPaths: index.index.keyPaths.count)
        var prefixes: [[UInt8]: Int] = [:]
        try txn.transaction.scan(databases.records, prefix: StoreLayout.kindPrefix(index.kind)) { key, record in
            guard let ref = StoreLayout.ref(fromKey: key),
                  let entries = try? IndexEntries(index.index, top: { try RecordCodec.value(forKey: $0, in: record) }) else {
                return true  // reported by the records' check
            }
            if let counts = IndexStatistics(irregularEntriesOf: entries, in: index.index) { irregular.add(counts) }
            IndexPrefixCounts.forEachPrefix(of: entries) { prefixes[$0, default: 0] += 1 }
            for (tuple, entry) in WriteTransaction.stored(entries) {
                expected += 1
                let entryKey = IndexEntryLayout.key(prefix: index.prefix, tuple: tuple, id: ref.id)
                let found = try txn.transaction.withValue(forKey: entryKey, in: db) { value in
                    value.map { IndexEntryLayout.decode(key: entryKey, value: $0, prefixLength: index.prefix.count) }
                }
                switch found {
                case nil:
                    report.add("index \(index.qualifiedName) lacks an entry of record \(ref)")
                case let stored?? where stored.tupleLength == tuple.count && stored.flags.contains(.inexact) == entry.isCut
                    && stored.items.contains(.init(id: ref.id, isElement: entry.isElement)):
                    break
                case .some(nil):
                    undecodable += 1
                    report.add("index \(index.qualifiedName) has a damaged entry for record \(ref)")
                default:
                    report.add("index \(index.qualifiedName) has a damaged entry for record \(ref)")
                }
            }
            return true
        }
        return (expected, undecodable, irregular, prefixes)
    }

    /// Reports the index's entries that no record gives.
    private func findExtraEntries(of index: BuiltIndex, _ txn: ReadTransaction, into report: inout VerificationReport) throws {
        let prefixLength = index.prefix.count
        try txn.forEachIndexEntry(of: index) { key, stored in
            guard let stored else { return true }
            let tuple = Array(key[prefixLength ..< prefixLength + stored.tupleLength])
            for item in stored.items {
                guard let ref = try? RecordRef(kind: index.kind, id: item.id) else {
                    report.add("index \(index.qualifiedName) has an entry for an invalid id '\(item.id.prefix(80))'")
                    continue
                }
                let given = try txn.withRecordBytes(ref) { record in
                    record.map { record in
                        try? WriteTransaction.stored(IndexEntries(index.index, top: { try RecordCodec.value(forKey: $0, in: record) }))
                    }
                }
                switch given {
                case nil: report.add("index \(index.qualifiedName) has an entry for record \(ref), which does not exist")
                case let entries?? where entries.contains(where: { $0.tuple == tuple }): break
                default: report.add("index \(index.qualifiedName) has an entry for record \(ref) that its values do not give")
                }
            }
            return true
        }
    }
}
