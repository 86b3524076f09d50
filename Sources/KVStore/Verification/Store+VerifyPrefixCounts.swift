import LMDB

/// What ``Store/verify(progress:)`` checks of the indexes' prefix counts (``IndexPrefixCounts``).
extension Store {
    /// Reports the counts of `index` that are not `expected`, what its records give: a count that
    /// differs, is missing, does not decode, or counts a prefix no record has — one finding for
    /// the index, naming how many and the first.
    func checkPrefixCounts(
        of index: BuiltIndex, _ expected: [[UInt8]: Int], _ txn: ReadTransaction, _ db: Database,
        into report: inout VerificationReport
    ) throws {
        guard index.countsPrefixes else { return }
        let area = IndexPrefixCounts.prefix(of: index.number)
        var left = expected, wrong: [(prefix: [UInt8], stored: Int?, given: Int)] = []
        try txn.transaction.scan(db, prefix: area) { key, value in
            let prefix = Array(key[area.count...])
            let stored = IndexPrefixCounts.decode(value), given = left.removeValue(forKey: prefix) ?? 0
            if stored != given { wrong.append((prefix, stored, given)) }
            return true
        }
        for (prefix, given) in left { wrong.append((prefix, 0, given)) }
        guard let first = wrong.min(by: { $0.prefix.lexicographicallyPrecedes($1.prefix) }) else { return }
        let stored = first.stored.map { "\($0) records" } ?? "a value that does not decode"
        report.add("index \(index.qualifiedName) has \(wrong.count) damaged prefix count\(wrong.count == 1 ? "" : "s"): "
            + "the first, of prefix \(Self.hex(first.prefix)), holds \(stored); its records give \(first.given)")
    }

    /// Reports prefix counts of no index that keeps them.
    func checkPrefixCountAreas(built: [BuiltIndex], _ txn: ReadTransaction, _ db: Database, into report: inout VerificationReport) throws {
        let counted = Set(built.filter(\.countsPrefixes).map(\.number))
        var orphans: [UInt32: Int] = [:]
        try txn.transaction.scan(db, prefix: IndexPrefixCounts.areaPrefix) { key, _ in
            let number = key.count >= 8 ? key[4 ..< 8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } : 0
            if !counted.contains(number) { orphans[number, default: 0] += 1 }
            return true
        }
        for (number, count) in orphans.sorted(by: { $0.key < $1.key }) {
            report.add("the indexes database has \(count) prefix count\(count == 1 ? "" : "s") of no index that keeps them (number \(number))")
        }
    }

    /// `60 66 65` for the bytes 0x60 0x66 0x65 (at most 40 of them).
    private static func hex(_ bytes: [UInt8]) -> String {
        let shown = bytes.prefix(40).map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
        return shown.joined(separator: " ") + (bytes.count > 40 ? " …" : "")
    }
}
