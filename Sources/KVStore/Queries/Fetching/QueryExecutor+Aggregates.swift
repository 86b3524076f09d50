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
    /// order (no ordering, no second lookup) and added in `Int64` — in `Decimal` past its range,
    /// as the exact path adds ints. Nil, having changed nothing, when the order could change the
    /// result or an error must be thrown as the ordered path throws it: an offset or a limit picks
    /// the matches, or a value is not an int (a double, whose sum depends on the order).
    func intTotal(_ op: CollectionOperator, of key: String) throws -> Value? {
        guard op == .sum || op == .avg, query.offset == 0, query.limit == nil else { return nil }
        var total: Int64 = 0, wide: Decimal?
        var count = 0, allInts = true
        try stream(try CurrentCandidate(kind: query.kind, in: transaction), loading: true) { current in
            count += 1
            switch try values(current).value(forKey: key, of: current.standIn) {
            case nil, .null?: break
            case .int(let int)?:
                let (sum, overflow) = total.addingReportingOverflow(int)
                if overflow {
                    wide = (wide ?? 0) + Decimal(total) + Decimal(int)
                    total = 0
                } else {
                    total = sum
                }
            default:
                allInts = false
                return false
            }
            return true
        }
        guard allInts else { return nil }
        let exact = (wide ?? 0) + Decimal(total)
        if op == .avg { return NumericTotal(intTotal: exact, count: count).average }
        guard wide == nil || Int64(exact.description) != nil else { return nil }  // the ordered path throws the overflow
        return .int(wide == nil ? total : Int64(exact.description)!)
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
