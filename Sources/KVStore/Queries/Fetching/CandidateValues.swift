/// The candidate a query is looking at, in a box the evaluation's source reads: one box (and one
/// predicate evaluator) serves a whole scan, the candidate changing under it.
final class CurrentCandidate {
    let kind: String
    /// Whether the kind's keys read as stored: no kind registered, or an open one without a
    /// `valueForUndefinedKey` hook (no rule changes what a key reads).
    let readsStoredValues: Bool
    /// The candidate's id, as UTF-8 bytes; valid while it is the current one.
    private(set) var id = UnsafeRawBufferPointer(start: nil, count: 0)
    /// The candidate's stored encoding; valid while it is the current one.
    private(set) var bytes = UnsafeRawBufferPointer(start: nil, count: 0)
    private var madeRef: RecordRef?

    /// The stand-in for the current candidate that evaluations start from: `kind/` with an empty
    /// id, which no record has (``RecordRef`` refuses one), so no stored reference can be taken
    /// for it.
    let standIn: RecordRef

    /// The box for a query of `kind` in `transaction`, whose rules (the catalog's declaration and
    /// this process's hooks) say how its keys read.
    init(kind: String, in transaction: ReadTransaction) throws {
        self.kind = kind
        standIn = RecordRef(storedKind: kind, id: "")
        readsStoredValues = try transaction.effectiveKind(named: kind).map { !$0.isClosed && $0.valueForUndefinedKey == nil } ?? true
    }

    /// Makes the candidate with this id and encoding the current one.
    func set(id: UnsafeRawBufferPointer, bytes: UnsafeRawBufferPointer) {
        self.id = id
        self.bytes = bytes
        madeRef = nil
    }

    /// Makes the record `ref`, with this encoding, the current one.
    func set(_ ref: RecordRef, bytes: UnsafeRawBufferPointer) {
        id = UnsafeRawBufferPointer(start: nil, count: 0)
        self.bytes = bytes
        madeRef = ref
    }

    /// The candidate's reference, made on first use (most candidates of a scan never need one).
    var ref: RecordRef {
        if let madeRef { return madeRef }
        let text = id.bindMemoryAssumingUInt8()  // checked when stored, or when its index entry was read
        let ref = RecordRef(storedKind: kind, id: UTF8Text.string(text) ?? String(decoding: text, as: UTF8.self))
        madeRef = ref
        return ref
    }
}

/// Key-path evaluation over a query's candidates: the keys of the ``CurrentCandidate`` (named by
/// its stand-in reference) are read from its encoding in place, counted; other records (through
/// references) are read from the transaction.
///
/// When the kind's keys read as stored (``CurrentCandidate/readsStoredValues``), a key is read
/// straight from the encoding's key directory, and the candidate's reference is never made.
struct CandidateValues: KeyValueSource {
    let transaction: ReadTransaction
    let current: CurrentCandidate
    let statistics: QueryStatistics
    /// Notes the other records read, for a live query (nil: not noted).
    var reads: OtherRecordReads? = nil

    func value(forKey key: String, of ref: RecordRef) throws -> Value? {
        guard ref.id.isEmpty else {
            reads?.refs.insert(ref)
            return try TransactionSource(transaction: transaction).value(forKey: key, of: ref)
        }
        statistics.keysRead += 1
        if current.readsStoredValues {
            do {
                return try RecordCodec.value(forKey: key, in: current.bytes)
            } catch {
                return try transaction.storedValue(forKey: key, in: current.bytes, of: current.ref)  // throws the corrupt error
            }
        }
        return try transaction.value(forKey: key, of: current.ref, record: current.bytes)
    }

    /// The current candidate's value at `path`, from its stand-in; errors are thrown.
    func value(at path: KeyValuePath) throws -> Value? {
        try KeyPathEvaluator.value(at: path.components[...], in: .reference(current.standIn), source: self, fullPath: path)
    }

    /// The value at `path` as a predicate or a sort reads it: nil when there is none or it cannot
    /// be read from this record (a key into a number, an operator over a non-array, a key a
    /// closed kind does not declare). A path of one key is read without the key-path machinery.
    func lenientValue(at path: KeyValuePath) throws -> Value? {
        if path.components.count == 1, let key = path.firstKey { return try lenientValue(forKey: key) }
        do {
            return try value(at: path)
        } catch is KeyValueCodingError {
            return nil
        }
    }

    /// The current candidate's value of `key`, read as ``lenientValue(at:)`` reads it.
    func lenientValue(forKey key: String) throws -> Value? {
        do {
            return try value(forKey: key, of: current.standIn)
        } catch is KeyValueCodingError {
            return nil
        }
    }
}

/// The records other than the candidate that an evaluation read through references (a live query
/// evaluates a record again when one of them changes).
final class OtherRecordReads {
    var refs: Set<RecordRef> = []
}
