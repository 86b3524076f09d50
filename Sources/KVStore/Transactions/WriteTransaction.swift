import Foundation
import LMDB

/// A write transaction: everything changed through it commits together, with one commit id shared
/// by all its journal entries. Valid only during the ``Store/write(_:)-2jclw`` closure that received it.
///
/// Every mutation runs will-change → mutation → did-change, and did-change appends a journal entry
/// in this same LMDB transaction, so data and journal commit (or vanish) together.
///
/// ```swift
/// try store.write { txn in
///     let ref = try txn.insert(["name": "Ada"], kind: "person")
///     try txn.setValue(36, forKey: "age", of: ref)
///     try txn.mutableArray(forKey: "tags", of: ref).append("math")
/// }
/// ```
public final class WriteTransaction: ReadTransaction {
    var tracker = ChangeTracker()
    /// The journal entries appended so far.
    public private(set) var entries: [JournalEntry] = []
    /// Whether ``entries`` keeps the entries appended (default true). A bulk load of millions of
    /// records turns it off, so the transaction does not hold a copy of every record it journals;
    /// nothing in the transaction reads them back. While the store has observers in this process
    /// the entries are kept all the same: the observers are matched against them at commit.
    package var keepsEntries = true
    /// Prior notifications sent by this run of the write's body, and those an earlier run (before
    /// the map grew) already sent: a re-run skips them, so each is sent once.
    var priorsSent = 0
    var priorsSentBefore = 0
    /// The origin to stamp on entries (replicated apply); nil for local changes.
    var origin: JournalOrigin?
    /// The time to record as keys' modification time instead of the commit's (replicated apply:
    /// the source entry's time); see ``stampModification(of:)``.
    var modificationTime: Date?
    /// The stamp time to give the entries journaled (applying another store's entry: the source
    /// entry's); nil for local changes, which the store's clock stamps (``nextStampTime()``).
    var appliedStamp: HybridTime?
    /// Whether ``appliedStamp`` is a legacy entry's timestamp (``HybridTime/init(legacy:)``),
    /// shared by every entry of its commit; see ``entryStampTime(after:)``.
    var appliedStampIsLegacy = false
    /// The last time the store's clock gave, once this transaction gave or recovered one.
    var clockState: HybridTime?
    /// The stamp of the last entry this transaction journaled.
    var lastJournaledStamp: HybridTime?
    /// What the store's ``ClockCache`` keeps once this transaction commits (set by ``finish()``).
    var clockAfterCommit: ClockCache.Entry?
    /// The hub offset the clock adds to this transaction's time (0: none), once read; see
    /// ``clockMilliseconds()``.
    var clockOffset: Int64?
    /// The record a remote change is being applied to (``applyRemote(_:hubNow:)``): it keeps
    /// that record's sync state itself, so journaling leaves it alone; what hooks write to other
    /// records meanwhile is journaled as this store's own change.
    var applyingRemote: RecordRef?
    private var sequenceState: (commit: UInt64, last: UInt64)?
    /// Whether something was journaled under the current commit id (see ``startNextCommit()``).
    private var commitHasEntries = false
    private var countDeltas = KindCountDeltas()
    /// A change whose record was written but whose journal entry could not be: the transaction
    /// must not commit (``finish()`` throws it), even if the caller caught the error; also a
    /// batch of remote changes refused halfway.
    var unjournaled: (any Error)?
    /// The store's wall clock when the transaction began (``Store/Options/wallClock``).
    private let timestamp: Date
    /// Whether the changes are applied from another store's journal (allowed on a replica).
    var isApplying = false
    /// The indexes this transaction keeps, by kind (see `WriteTransaction+IndexMaintenance`).
    var indexState = IndexWriteState()

    override init(store: Store, transaction: LMDB.Transaction) {
        timestamp = store.options.wallClock()
        super.init(store: store, transaction: transaction)
    }

    // MARK: Journal

    /// Appends one entry for a change that did-change found real.
    /// - Parameter encodedNew: the record's encoding, when `new` is a whole record just encoded;
    ///   with `new` nil, the entry's new value is that record, decoded only when asked for.
    func journal(
        _ change: ChangeKind, ref: RecordRef, keyPath: String?, old: Value?, new: Value?,
        indexes: [Int]? = nil, isDerived: Bool = false, encodedNew: [UInt8]? = nil
    ) throws {
        if let remote = applyingRemote, remote != ref {
            return try asLocalChange { try journal(change, ref: ref, keyPath: keyPath, old: old, new: new, indexes: indexes, isDerived: isDerived, encodedNew: encodedNew) }
        }
        let position = try nextJournalPosition()
        let syncState = try syncStateBeforeJournaling(change, ref: ref, isDerived: isDerived)
        var entry = JournalEntry(
            sequence: position.sequence, commitID: position.commit, timestamp: timestamp,
            stamp: try entryStampTime(after: syncState?.latest), origin: origin,
            ref: ref, keyPath: keyPath, change: change, oldValue: old, newValue: new,
            indexes: indexes, isDerived: isDerived)
        if new == nil, let encodedNew { entry.newStorage = .encodedRecord(encodedNew) }
        try JournalCodec.withEncoding(entry, encodedNew: encodedNew) { encoded in
            guard encoded.count < JournalStream.maxPayload else {
                let error = KeyValueCodingError.entryTooLarge(size: encoded.count, keyPath: keyPath, ref: ref)
                unjournaled = unjournaled ?? error
                throw error
            }
            try StoreLayout.withSequenceKey(position.sequence) { key in
                try transaction.put(key, encoded, in: databases.journal, append: true)
            }
        }
        lastJournaledStamp = entry.stamp
        try stampModification(of: entry)
        if let syncState { try keepSyncState(syncState, for: entry, stamp: entry.syncStamp(localStore: store.id)) }
        if keepsEntries || store.observation.isObserved { entries.append(entry) }
    }

    /// The sequence and commit id of the next journal entry, counted as journaled under the
    /// current commit; the caller writes the entry at them, in this transaction's journal time
    /// (``journalTimestamp``). What ``journal(_:ref:keyPath:old:new:indexes:isDerived:encodedNew:)``
    /// does for its entries, and an applier writing a source entry's bytes itself.
    func nextJournalPosition() throws -> (sequence: UInt64, commit: UInt64) {
        if sequenceState == nil { try checkLocalWriteAllowed() }
        var state = try sequenceState ?? (
            commit: counterSuccessor(
                transaction.uint64(forKey: StoreLayout.MetaKey.lastCommit, in: databases.meta) ?? 0, "last-commit"),
            last: try lastSequence())
        if sequenceState == nil { journalStart = state.last }
        state.last = try counterSuccessor(state.last, "last-sequence")
        sequenceState = state
        commitHasEntries = true
        return (state.last, state.commit)
    }

    /// The number after a journal counter read from `meta`. Only a damaged counter reaches
    /// `Int64.max` (it would take 2^63 journaled changes): the write is refused rather than the
    /// counter wrapping, and the later increments of one transaction (``startNextCommit()``)
    /// stay far from overflowing.
    private func counterSuccessor(_ value: UInt64, _ name: String) throws -> UInt64 {
        guard value < UInt64(Int64.max) else {
            throw StoreError(.corrupt, "the \(name) counter in meta is \(value), past the largest a journal reaches: the counter is damaged", path: store.path)
        }
        return value + 1
    }

    /// The store's last sequence when this transaction journaled its first entry.
    private var journalStart: UInt64?

    /// The sequence of the journal's last entry before this transaction's own.
    func journalStartSequence() throws -> UInt64 {
        try journalStart ?? lastSequence()
    }

    /// The sequence of the journal's last entry, this transaction's own included.
    func journalLastSequence() throws -> UInt64 {
        try sequenceState?.last ?? lastSequence()
    }

    /// The time this transaction's journal entries carry.
    var journalTimestamp: Date { timestamp }

    /// Gives the changes journaled from here on the next commit id, within this same LMDB
    /// transaction (applying a journal: one commit id per source commit). A no-op while nothing
    /// was journaled under the current one.
    func startNextCommit() {
        if var state = sequenceState, commitHasEntries {
            state.commit += 1
            sequenceState = state
            commitHasEntries = false
        }
    }

    /// The commit id of this transaction's changes, or nil when it has changed nothing yet.
    public var commitID: UInt64? { sequenceState?.commit }

    /// Checks the pairs are balanced and saves the journal counters; called before commit.
    func finish() throws {
        if let unjournaled { throw unjournaled }
        if let (key, _) = tracker.open.first {
            throw StoreError(
                .unbalancedChange,
                "willChange for '\(key.keyPath)' of \(key.ref) was not followed by didChange before the write ended",
                path: store.path)
        }
        try saveCounts()
        try saveIndexStatistics()
        try saveClockIfMoved()
        clockAfterCommit = try clockCacheEntry()
        if let state = sequenceState {
            try transaction.put(StoreLayout.MetaKey.lastSequence, StoreLayout.uint64(state.last), in: databases.meta)
            try transaction.put(StoreLayout.MetaKey.lastCommit, StoreLayout.uint64(state.commit), in: databases.meta)
        }
    }

    // MARK: Change hooks

    /// Announces that the value at `keyPath` of the record is about to change — by hand, for a
    /// derived key whose value is computed from others (pair it with ``didChangeValue(forKey:of:)``).
    /// Nested pairs for the same key coalesce into one change, reported by the outermost did-change.
    ///
    /// ```swift
    /// try txn.willChangeValue(forKey: "fullName", of: ada)
    /// try txn.setValue("Augusta Ada", forKey: "first", of: ada)
    /// try txn.didChangeValue(forKey: "fullName", of: ada)   // journals fullName's old and new value
    /// ```
    public func willChangeValue(forKey keyPath: String, of ref: RecordRef) throws {
        try willChange(.init(ref: ref, keyPath: keyPath), oldValue: try value(forKeyPath: keyPath, of: ref), stored: false)
    }

    /// Closes a ``willChangeValue(forKey:of:)``: when it is the outermost one and the value
    /// differs, the change is journaled.
    public func didChangeValue(forKey keyPath: String, of ref: RecordRef) throws {
        let key = ChangeTracker.Key(ref: ref, keyPath: keyPath)
        guard let closed = try tracker.didChange(key) else { return }
        let new = try value(forKeyPath: keyPath, of: ref)
        try journalIfChanged(closed, key: key, new: new)
    }

    func journalIfChanged(_ closed: ChangeTracker.Open, key: ChangeTracker.Key, new: Value?) throws {
        if closed.change == .setting && closed.oldValue == new { return }
        try journal(closed.change, ref: key.ref, keyPath: key.keyPath, old: closed.oldValue, new: new,
                    indexes: closed.indexes, isDerived: !closed.storedChange)
    }

    // MARK: Records

    /// Inserts a record with a generated id (a time-ordered UUID). `null` values are left out (a
    /// record holds no nulls at its top level).
    /// - Returns: its reference.
    @discardableResult
    public func insert(_ values: [String: Value], kind: String) throws -> RecordRef {
        let ref = try RecordRef(kind: kind, id: RecordID.generate())
        try insert(values, as: ref)
        return ref
    }

    /// Inserts a record under `ref`, journaled as one entry with the whole dictionary.
    /// - Throws: ``KeyValueCodingError`` `recordExists`, `undefinedKey` (closed kind),
    ///   `typeMismatch`, or a validation error when the store validates on set.
    public func insert(_ values: [String: Value], as ref: RecordRef) throws {
        let kind = try effectiveKind(named: ref.kind)
        // The common record (an open kind's, ASCII keys, no nulls): checked and encoded in one pass.
        if kind == nil, let plain = try RecordCodec.encodePlain(values, checkingNesting: {
            try checkNesting(of: .dictionary(values), outerLevels: 0, keyPath: nil, ref: ref)
        }) {
            return try insert(values, encoded: plain.bytes, as: ref)
        }
        var allASCII = true
        for key in values.keys where !(try Self.checkKey(key)) { allASCII = false }
        // Validators, hooks and the entry see the keys in NFC, as setValue gives them.
        let values = allASCII ? values : Dictionary(values.map { (UTF8Text.nfc($0.key), $0.value) }, uniquingKeysWith: { $1 })
        var checked: [String: Value]
        if let kind {
            // The kind bound once: not a copy of it for each key.
            checked = [:]
            checked.reserveCapacity(values.count)
            for (key, value) in values { checked[key] = try checkedValue(value, forKey: key, kind: kind, ref: ref) }
        } else {
            checked = values.values.contains(where: \.isNull) ? values.filter { !$0.value.isNull } : values
        }
        try checkNesting(of: .dictionary(checked), outerLevels: 0, keyPath: nil, ref: ref)
        try insert(checked, encoded: RecordCodec.encode(checked), as: ref)
    }

    /// Inserts the record `checked`, checked for its kind and encoded as `encoded`.
    private func insert(_ checked: [String: Value], encoded: [UInt8], as ref: RecordRef) throws {
        if encoded.count > KeyValueCodingError.maximumRecordSize {
            throw KeyValueCodingError.recordTooLarge(size: encoded.count, keyPath: nil, ref: ref)
        }
        let indexed = try maintainedIndexes(ofKind: ref.kind)
        // A unique index is checked before anything is written; other entries are put after.
        let checksFirst = indexed.contains { $0.index.isUnique }
        let indexChanges = checksFirst ? try indexChanges(in: indexed, of: ref, changedKey: nil, old: nil, new: { checked[$0] }) : nil
        announce(ref, keyPath: nil, change: .recordInserted)
        guard try transaction.insert(StoreLayout.recordKey(ref), encoded, in: databases.records) else {
            throw KeyValueCodingError.recordExists(ref)
        }
        if checksFirst { try apply(indexChanges) } else if !indexed.isEmpty { try addEntries(of: ref, in: indexed, top: { checked[$0] }) }
        try adjustCount(of: ref.kind, by: 1)
        try journal(.recordInserted, ref: ref, keyPath: nil, old: nil, new: .dictionary(checked), encodedNew: encoded)
    }

    /// `value` of `key` as an insert of a record of `kind` stores it (nil: not stored).
    private func checkedValue(_ value: Value, forKey key: String, kind: Kind, ref: RecordRef) throws -> Value? {
        var value: Value? = value.isNull ? nil : value
        if kind.isClosed && !kind.declares(key) {
            throw KeyValueCodingError.undefinedKey(key, kind: kind.name, ref: ref, writing: true)
        }
        if store.options.validatesOnSet { try validateValue(&value, forKey: key, of: ref) }
        return try checkDeclaredType(value, forKey: key, kind: kind, ref: ref)
    }

    /// Deletes the record, journaled as one entry carrying its whole dictionary as the old value.
    /// - Throws: ``KeyValueCodingError/Code/recordNotFound``.
    public func delete(_ ref: RecordRef) throws {
        let old = try existingRecord(ref)
        let indexed = try maintainedIndexes(ofKind: ref.kind)
        let indexChanges = indexed.isEmpty ? nil : try indexChanges(in: indexed, of: ref, changedKey: nil, old: { old[$0] }, new: nil)
        announce(ref, keyPath: nil, change: .recordDeleted)
        try transaction.delete(StoreLayout.recordKey(ref), in: databases.records)
        try apply(indexChanges)
        try adjustCount(of: ref.kind, by: -1)
        try journal(.recordDeleted, ref: ref, keyPath: nil, old: .dictionary(old), new: nil)
    }

    /// Sets one key of a stored record by patching its encoding (the caller journals the change).
    /// - Returns: the key's previous value.
    /// - Throws: ``KeyValueCodingError/Code/recordNotFound``.
    @discardableResult
    func replaceStoredValue(_ value: Value?, forKey key: String, of ref: RecordRef) throws -> Value? {
        try replaceStoredValue(value, forKey: key, of: ref) { _ in true }
    }

    /// Sets one key of a stored record by patching its encoding, when `shouldWrite` approves the
    /// previous value (the caller journals the change).
    /// - Returns: the previous value.
    func replaceStoredValue(
        _ value: Value?, forKey key: String, of ref: RecordRef, if shouldWrite: (Value?) throws -> Bool
    ) throws -> Value? {
        if let value { try checkNesting(of: value, outerLevels: 1, keyPath: key, ref: ref) }
        let recordKey = StoreLayout.recordKey(ref)
        let indexed = try maintainedIndexes(ofKind: ref.kind)
        let (patched, indexChanges) = try transaction.withValue(forKey: recordKey, in: databases.records) { bytes throws -> ((record: [UInt8], old: Value?), IndexChanges?) in
            guard let bytes else { throw KeyValueCodingError.recordNotFound(ref) }
            let patched: (record: [UInt8], old: Value?)
            do {
                patched = try RecordCodec.replacing(key, with: value, in: bytes)
            } catch {
                throw StoreError(.corrupt, "record \(ref) is corrupt: \(error)", path: store.path)
            }
            // A record already past the limit (written before it) may still shrink.
            if patched.record.count > KeyValueCodingError.maximumRecordSize && patched.record.count > bytes.count {
                throw KeyValueCodingError.recordTooLarge(size: patched.record.count, keyPath: key, ref: ref)
            }
            // Checked before anything is written (an unchanged value changes no index).
            guard !indexed.isEmpty else { return (patched, nil) }
            let others = topValues(in: bytes, of: ref)
            let indexChanges = try self.indexChanges(
                in: indexed, of: ref, changedKey: UTF8Text.nfc(key),
                old: { name in name == key ? patched.old : try others(name) },
                new: { name in name == key ? value : try others(name) })
            return (patched, indexChanges)
        }
        if try shouldWrite(patched.old) {
            try transaction.put(recordKey, patched.record, in: databases.records)
            try apply(indexChanges)
        }
        return patched.old
    }

    /// Counts records inserted and deleted per kind; the counters are written once, by ``finish()``.
    func adjustCount(of kind: String, by delta: Int) throws {
        countDeltas.add(delta, to: kind)
    }

    public override func count(ofKind kind: String) throws -> Int {
        try super.count(ofKind: kind) + countDeltas[kind]
    }

    public override func kinds() throws -> [(kind: String, count: Int)] {
        var counts = Dictionary(uniqueKeysWithValues: try super.kinds().map { ($0.kind, $0.count) })
        for (kind, delta) in countDeltas.all { counts[kind, default: 0] += delta }
        return counts.filter { $0.value > 0 }.sorted { UTF8Text.precedes($0.key, $1.key) }.map { ($0.key, $0.value) }
    }

    private func saveCounts() throws {
        for (kind, delta) in countDeltas.all where delta != 0 {
            let key = StoreLayout.MetaKey.count(kind)
            let next = try super.count(ofKind: kind) + delta
            if next <= 0 {
                try transaction.delete(key, in: databases.meta)
            } else {
                try transaction.put(key, StoreLayout.uint64(UInt64(next)), in: databases.meta)
            }
        }
    }
}
