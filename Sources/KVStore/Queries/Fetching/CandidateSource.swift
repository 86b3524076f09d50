import LMDB

/// A record a query's access path offers the executor: its id, and its stored encoding when the
/// access path has it at hand (a scan does; an index entry does not). Both point into the map and
/// are valid only during the call that hands the candidate over.
struct Candidate {
    /// The id's UTF-8 bytes (the record's key after `kind 0x00`).
    let id: UnsafeRawBufferPointer
    /// The record's stored encoding; nil when the executor must look it up.
    let bytes: UnsafeRawBufferPointer?
}

/// Where a ``QueryPlan`` takes its candidate records from: a scan of the kind (``KindScan``) or
/// an index's ranges (``IndexScan``).
///
/// A source yields records of the query's kind only, each at most once, in the order its plan
/// states (``QueryPlan/order``). It does not filter them: the executor checks the plan's residual
/// predicate on each candidate.
protocol CandidateSource {
    /// Calls `body` with each candidate, in order, until `body` returns false.
    func forEachCandidate(in transaction: ReadTransaction, _ body: (Candidate) throws -> Bool) throws

    /// The number of candidates when known without visiting them (a kind's record counter); nil
    /// when only visiting them tells.
    func knownCount(in transaction: ReadTransaction) throws -> Int?
}

/// The records of one kind in id order (bytewise UTF-8), or the reverse, optionally from an id
/// (inclusive) up to another (exclusive): a cursor over the `records` database, each record's
/// bytes read in place.
struct KindScan: CandidateSource, Hashable {
    let kind: String
    /// The first id visited going forward (the last going backward); nil for the kind's first.
    var start: String?
    /// The id the range stops before; nil for past the kind's last.
    var end: String?
    /// Whether to visit the ids from the highest down.
    var reverse = false

    func forEachCandidate(in transaction: ReadTransaction, _ body: (Candidate) throws -> Bool) throws {
        let prefix = StoreLayout.kindPrefix(kind)
        let startKey = start.map { prefix + Array($0.utf8) } ?? prefix
        // Bytes after the separator 0x00: the first key past every key of the kind is `kind 0x01`.
        let endKey = end.map { prefix + Array($0.utf8) } ?? Array(kind.utf8) + [1]
        guard startKey.lexicographicallyPrecedes(endKey) else { return }
        try transaction.transaction.withCursor(on: transaction.databases.records) { cursor in
            var entry: Cursor.Entry?
            if reverse {
                entry = try cursor.seek(atOrAfter: endKey) == nil ? cursor.last() : cursor.previous()
            } else {
                entry = try cursor.seek(atOrAfter: startKey)
            }
            // Every key in [startKey, endKey) starts with the kind's prefix.
            while let (key, value) = entry {
                guard reverse ? !key.lexicographicallyPrecedes(startKey) : key.lexicographicallyPrecedes(endKey) else { return }
                guard try body(Candidate(id: UnsafeRawBufferPointer(rebasing: key[prefix.count...]), bytes: value)) else { return }
                entry = try reverse ? cursor.previous() : cursor.next()
            }
        }
    }

    func knownCount(in transaction: ReadTransaction) throws -> Int? {
        start == nil && end == nil ? try transaction.count(ofKind: kind) : nil
    }
}

extension RecordRef {
    /// A reference read from a record key of the store, whose kind and id were checked when the
    /// record was written: not checked again (a scan makes one per record).
    init(storedKind kind: String, id: String) {
        self.kind = kind
        self.id = id
    }
}
