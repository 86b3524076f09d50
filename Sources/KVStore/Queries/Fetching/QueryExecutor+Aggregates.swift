import Foundation
import LMDB

/// Aggregates that need no order: a count from an index's entries alone, and a sum or average of
/// ints over the matches as the access path gives them.
extension QueryExecutor {
    /// The number of results from the entries of the plan's index scan alone, when every
    /// candidate is a result and each record has one entry (no entry from an array's element, so
    /// no record is met twice): no id is read, no record looked up. Nil otherwise.
    ///
    /// Ranges that are the same (`IN {1, 1.0}`, or `IN {'é', 'e\u{301}'}`, which the index keeps
    /// alike) are counted once; ranges that overlap otherwise leave the count to the scan.
    func countFromEntries() throws -> Int? {
        guard plan.residual == nil, case .index(let scan) = plan.access, let db = transaction.databases.indexes,
              let ranges = Self.disjoint(scan.ranges),
              let counts = try transaction.indexStatistics(of: scan.built), counts.element == 0 else { return nil }
        var total = 0
        for range in ranges {
            let (lower, upper) = range.keys(withPrefix: scan.built.prefix)
            try transaction.transaction.scan(db, from: lower, to: upper) { key, value in
                guard key.count > scan.built.prefix.count else { return true }  // the index's statistics
                guard let items = IndexEntryLayout.itemCount(value) else { throw scan.undecodableEntry(in: transaction) }
                total += items
                return true
            }
        }
        return total
    }

    /// `ranges` by their bounds, each once, in key order; nil when two of them overlap.
    static func disjoint(_ ranges: [IndexKeyRange]) -> [IndexKeyRange]? {
        var sorted: [IndexKeyRange] = []
        for range in ranges where !sorted.contains(where: { $0.lower == range.lower && $0.upper == range.upper }) { sorted.append(range) }
        sorted.sort { $0.lower.lexicographicallyPrecedes($1.lower) }
        for (range, next) in zip(sorted, sorted.dropFirst()) {
            guard let upper = range.upper, !next.lower.lexicographicallyPrecedes(upper) else { return nil }
        }
        return sorted
    }

    /// `@sum` or `@avg` of the top-level key `key` over every match, streamed in the access path's
    /// order (no ordering, no second lookup; for an exact index plan, straight from its entries:
    /// ``forEachExactMatch(_:)``) and added in `Int64` — in `Decimal` past its range, as the exact
    /// path adds ints. Nil, having changed nothing, when the order could change the result or an
    /// error must be thrown as the ordered path throws it: an offset or a limit picks the matches,
    /// a value is not an int (a double, whose sum depends on the order), or reading one fails.
    func intTotal(_ op: CollectionOperator, of key: String) throws -> Value? {
        guard op == .sum || op == .avg, query.offset == 0, query.limit == nil else { return nil }
        var total = IntTotal()
        let current = try CurrentCandidate(kind: query.kind, in: transaction)
        let nfcKey = UTF8Text.nfc(key)  // once, not once per match
        let direct = try current.readsStoredValues && forEachExactMatch { bytes in
            do { return total.add(try RecordCodec.value(forNFCKey: nfcKey, in: bytes)) } catch {
                total.stop()
                return false
            }
        }
        if !direct {
            try stream(current, loading: true) { current in
                do { return total.add(try values(current).value(forKey: key, of: current.standIn)) } catch {
                    total.stop()
                    return false
                }
            }
        }
        return total.result(op) ?? nil
    }

    /// Calls `body` with the encoding of each result of an exact index plan whose index holds one
    /// entry per record (no element entry: no record met twice), until it returns false: each id
    /// taken from its entry's key and looked up at once — no `String` made, no `seen` set.
    /// Ranges that are the same are read once (``disjoint(_:)``).
    /// - Returns: false, having called nothing, when the plan is not such a plan.
    func forEachExactMatch(_ body: (UnsafeRawBufferPointer) throws -> Bool) throws -> Bool {
        guard plan.residual == nil, case .index(let scan) = plan.access, let db = transaction.databases.indexes,
              let ranges = Self.disjoint(scan.ranges), let counts = try transaction.indexStatistics(of: scan.built), counts.element == 0 else { return false }
        let prefixLength = scan.built.prefix.count
        var recordKey = StoreLayout.kindPrefix(query.kind)
        let kindLength = recordKey.count
        func give(_ id: some Collection<UInt8>) throws -> Bool {
            recordKey.removeSubrange(kindLength...)
            recordKey.append(contentsOf: id)
            return try transaction.transaction.withValue(forKey: recordKey, in: transaction.databases.records) { bytes in
                guard let bytes else {
                    throw StoreError(.corrupt, "an entry of index \(scan.built.qualifiedName) names a record that is not in the store", path: transaction.store.path)
                }
                return try body(bytes)
            }
        }
        var goOn = true
        for range in ranges where goOn {
            let (lower, upper) = range.keys(withPrefix: scan.built.prefix)
            try transaction.transaction.scan(db, from: lower, to: upper) { key, value in
                guard key.count > prefixLength else { return true }  // the index's statistics
                guard value.count >= 2, prefixLength + Int(value[1]) <= key.count else { throw scan.undecodableEntry(in: transaction) }
                if IndexEntryFlags(rawValue: value[0]).contains(.idList) {
                    guard let stored = IndexEntryLayout.decode(key: key, value: value, prefixLength: prefixLength) else {
                        throw scan.undecodableEntry(in: transaction)
                    }
                    for item in stored.items where goOn { goOn = try give(item.id.utf8) }
                } else {
                    goOn = try give(key[(prefixLength + Int(value[1]))...])
                }
                return goOn
            }
        }
        return true
    }
}

extension IndexEntryLayout {
    /// How many records a stored entry's value holds, without decoding their ids; nil when it
    /// is malformed.
    static func itemCount(_ value: UnsafeRawBufferPointer) -> Int? {
        guard value.count >= 2 else { return nil }
        guard IndexEntryFlags(rawValue: value[0]).contains(.idList) else { return value.count == 2 ? 1 : nil }
        var (offset, items) = (2, 0)
        while offset < value.count {
            guard offset + 3 <= value.count else { return nil }
            offset += 3 + (Int(value[offset + 1]) | Int(value[offset + 2]) << 8)
            items += 1
        }
        return offset == value.count && items > 0 ? items : nil
    }
}
