/// The records of one index range, or of several (an `IN` list), plus the index's unknown bucket
/// (records whose key path ran into a reference, which an index cannot place): a
/// ``CandidateSource`` that hands ids over, each once, and lets the executor look the records up.
///
/// The ranges hold every record the planner's conditions can match (a superset when entries must
/// be re-checked: ``needsRecheck(_:)`` tells which), so the plan checks a residual predicate on
/// the candidates. Candidates come in key order (tuple, then id) per range, ranges in the order
/// given — or, with ``mergeOffsets``, the ranges merged —, then the unknown bucket.
struct IndexScan: CandidateSource, Hashable {
    let built: BuiltIndex
    /// The ranges read, in order; a record in several is given once.
    let ranges: [IndexKeyRange]
    /// Whether each range is read from its last tuple to its first (the records of one tuple
    /// still in ascending id order).
    var reverse = false
    /// When set, the ranges are read together, merged in the order of their tuples after these
    /// offsets (one per range: the length of the equalities' values it starts with), so that
    /// an `IN` list's ranges come in the order of the sort key after it
    /// (``forEachMergedID(in:offsets:_:)``).
    var mergeOffsets: [Int]?
    /// Whether each record has one entry in the index (none comes from an array's element: the
    /// survey found ``IndexStatistics/element`` 0), so that one range gives each record once
    /// without the scan remembering the ids it gave.
    var recordsHaveOneEntry = false
    /// How many candidates to pass over before giving any: an exact plan's offset (every
    /// candidate is a result). Where each record is given once without remembering it, they are
    /// passed over on the entries alone — whole entries, whole tuples read backward — without an
    /// id handed to the executor.
    var passOver = 0

    func forEachCandidate(in transaction: ReadTransaction, _ body: (Candidate) throws -> Bool) throws {
        // The unknown bucket's records have no other entry.
        let givesOnce = recordsHaveOneEntry && ranges.count <= 1
        var seen: Set<String>? = givesOnce ? nil : []
        var (goOn, toSkip) = (true, passOver)
        func give(_ id: UnsafeRawBufferPointer) throws -> Bool {
            if seen != nil, !seen!.insert(String(decoding: id, as: UTF8.self)).inserted { return true }
            if toSkip > 0 {
                toSkip -= 1
                return true
            }
            goOn = try body(Candidate(id: id, bytes: nil))
            return goOn
        }
        if let mergeOffsets {
            guard try forEachMergedID(in: transaction, offsets: mergeOffsets, give) else { return }
        }
        for range in (mergeOffsets == nil ? ranges : []) + [.unknownBucket] {
            if reverse && range != .unknownBucket {
                _ = try forEachIDBackward(in: range, transaction, passingOver: givesOnce ? toSkip : 0, { toSkip -= $0 }, give)
            } else {
                try transaction.forEachIndexEntryView(of: built, in: range) { _, view in
                    guard let view else { throw undecodableEntry(in: transaction) }
                    if givesOnce, toSkip >= view.count {
                        toSkip -= view.count
                        return true
                    }
                    return try view.forEachIDAllowingWrites { id, _ in try give(id) }
                }
            }
            if !goOn { return }
        }
    }

    func knownCount(in transaction: ReadTransaction) throws -> Int? { nil }

    /// The error for an entry of the index that does not decode.
    func undecodableEntry(in transaction: ReadTransaction) -> StoreError {
        StoreError(.corrupt, "an entry of index \(built.qualifiedName) does not decode", path: transaction.store.path)
    }

    /// Calls `body` with the id (its UTF-8 bytes, valid during the call) of each record under an
    /// entry of `range`, whether that entry must be re-checked, and the entry's tuple and flags,
    /// until it returns false.
    func forEachItem(
        in range: IndexKeyRange, _ transaction: ReadTransaction,
        _ body: (UnsafeRawBufferPointer, Bool, (tuple: UnsafeRawBufferPointer, flags: IndexEntryFlags)) throws -> Bool
    ) throws {
        try transaction.forEachIndexEntryView(of: built, in: range) { _, view in
            guard let view else {
                throw undecodableEntry(in: transaction)
            }
            let (tuple, flags) = (view.tuple, view.flags)
            let recheck = range.needsRecheck(tuple, flags: flags)
            return try view.forEachID { id, _ in try body(id, recheck, (tuple, flags)) }
        }
    }
}
