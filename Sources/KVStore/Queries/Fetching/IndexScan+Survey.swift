/// What an index scan's candidates allow, found before reading them: whether they are all results
/// (no record to re-check) and whether they come in a sort's order.
extension IndexScan {
    /// A sort descriptor as an index could give it: the position of its key path in the index,
    /// and how it compares strings.
    struct SortKey {
        let position: Int
        let strings: KeyPathSort.StringOrder
    }

    /// What ``survey(in:sortKeys:sortOffset:wantsExact:)`` finds.
    struct Survey: Equatable {
        /// No candidate must be re-checked, and the unknown bucket is empty.
        var exact: Bool
        /// How many of the sort keys, from the first, the candidates of one range come ordered by
        /// (ties by id); nil when the unknown bucket, which comes last, is not empty.
        var orderedKeys: Int?
        /// No entry comes from an array's element, as the index's statistics tell
        /// (``IndexScan/recordsHaveOneEntry``).
        var recordsHaveOneEntry = false
    }

    /// What the index allows, in a constant number of lookups: its unknown bucket (one cursor
    /// step), its ``IndexStatistics`` and the ranges' bounds.
    /// - `exact`: the unknown bucket is empty, no entry is inexact, no range has a cut bound, and
    ///   no entry is an element where a range tests whole values;
    /// - `orderedKeys`: with the bucket empty and no entry inexact or an element, the sort keys
    ///   from the first whose component no entry holds out of sort order
    ///   (``IndexKeyEncoding/SortDeparture``) — strings count when the sort compares them in the
    ///   form the index keeps them.
    ///
    /// An index whose irregular entries the store does not count (built before they were) is
    /// surveyed by reading its ranges (``surveyByReading(in:sortOffset:wantsExact:)``, one sort
    /// key at most; `sortOffset` is where its component starts in each tuple), only when
    /// `wantsExact` or a sort key asks for it.
    func survey(in transaction: ReadTransaction, sortKeys: [SortKey], sortOffset: Int?, wantsExact: Bool) throws -> Survey {
        var unknownEmpty = true
        try forEachItem(in: .unknownBucket, transaction) { _, _, _ in
            unknownEmpty = false
            return false
        }
        guard unknownEmpty else { return Survey(exact: false, orderedKeys: nil) }
        guard let counts = try transaction.indexStatistics(of: built) else {
            return try surveyByReading(in: transaction, sortOffset: sortKeys.isEmpty ? nil : sortOffset, wantsExact: wantsExact)
        }
        let exact = counts.inexact == 0 && ranges.allSatisfy { $0.recheckPrefix == nil && !($0.recheckElements && counts.element > 0) }
        guard counts.inexact == 0, counts.element == 0 else { return Survey(exact: exact, orderedKeys: 0, recordsHaveOneEntry: counts.element == 0) }
        let ordered = sortKeys.prefix { key in
            let slot = counts.slot(key.position)
            return counts.unordered[slot] == 0 && stringsOrderAsKept(by: key.strings, reformed: counts.reformed[slot] > 0)
        }
        return Survey(exact: exact, orderedKeys: ordered.count, recordsHaveOneEntry: true)
    }

    /// Whether a sort comparing strings as `strings` orders them as the index keeps them:
    /// by Unicode scalars when no string was kept in another form (`reformed`), or folded as a
    /// folded index keeps them.
    private func stringsOrderAsKept(by strings: KeyPathSort.StringOrder, reformed: Bool) -> Bool {
        switch strings {
        case .unicodeScalars: !reformed
        case .folded(let options) where options.isEmpty: !reformed
        case .folded(let options): built.index.isFolded && options == [.caseInsensitive, .diacriticInsensitive]
        case .localized: false
        }
    }

    /// The survey of an index without statistics (its unknown bucket empty): the entries of the
    /// ranges read. They are exact unless one must be re-checked; ordered by the sort key whose
    /// component starts at `sortOffset` unless one is an element or inexact, or its component
    /// there is not missing, a bool, or a number or date other than NaN.
    func surveyByReading(in transaction: ReadTransaction, sortOffset: Int?, wantsExact: Bool) throws -> Survey {
        var (exact, ordered) = (wantsExact, sortOffset != nil)
        for range in ranges where exact || ordered {
            try forEachItem(in: range, transaction) { _, needsRecheck, entry in
                if needsRecheck { exact = false }
                if let sortOffset, !Self.keepsSortOrder(entry, at: sortOffset) { ordered = false }
                return exact || ordered
            }
        }
        return Survey(exact: exact, orderedKeys: ordered ? 1 : 0)
    }

    private static let sortableClasses: Set<UInt8> = {
        let c = IndexKeyEncoding.Class.self
        return [c.missing, c.false, c.true, c.number + c.negative, c.number + c.zero, c.number + c.positive,
                c.date + c.negative, c.date + c.zero, c.date + c.positive]
    }()

    private static func keepsSortOrder(_ entry: (tuple: UnsafeRawBufferPointer, flags: IndexEntryFlags), at offset: Int) -> Bool {
        entry.flags.isDisjoint(with: [.element, .inexact]) && offset < entry.tuple.count && sortableClasses.contains(entry.tuple[offset])
    }
}
