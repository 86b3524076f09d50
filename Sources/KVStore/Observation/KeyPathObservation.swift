import LMDB
import Synchronization

/// One observer of a key path of a record: what it observes, its callback, and what the store
/// keeps to notify it.
///
/// Thread-safety: `lastValue` and the `scratch…` fields are touched only while the environment's
/// write lock is held (when a commit is matched, and when the observation starts);
/// `dependencies` only under the hub's index lock; the rest is immutable or atomic.
final class KeyPathObservation: @unchecked Sendable {
    let ref: RecordRef
    let keyPath: String
    let path: KeyValuePath
    let options: ObservationOptions
    let callback: @Sendable (ObservedChange) throws -> Void
    /// The store it was made through: its kinds evaluate the key path. Weak, so that observers
    /// do not keep a store alive; once it is gone, the writing store's kinds stand in.
    weak let store: Store?
    private let cancelled = Atomic<Bool>(false)

    /// The key path's value as of the last commit that affected it.
    var lastValue: Value?
    /// Where the observation is attached in the hub's index.
    var dependencies: Set<Dependency> = []

    // Per-commit scratch, valid while `scratchGeneration` is the hub's current generation.
    var scratchGeneration: UInt64 = 0
    /// Every entry of the commit that affects it names exactly its record and key path.
    var scratchExactOnly = true
    var scratchSeen = false
    /// The value after the commit's last exact entry, when that entry was a setting.
    var scratchValue: Value?
    var scratchValueKnown = false

    init(ref: RecordRef, keyPath: String, path: KeyValuePath, options: ObservationOptions,
         store: Store, callback: @escaping @Sendable (ObservedChange) throws -> Void) {
        self.ref = ref
        self.keyPath = keyPath
        self.path = path
        self.options = options
        self.store = store
        self.callback = callback
    }

    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// Marks it cancelled.
    /// - Returns: whether this call did (false when it already was).
    func markCancelled() -> Bool {
        !cancelled.exchange(true, ordering: .acquiringAndReleasing)
    }

    /// The key path's value and dependencies in `transaction`.
    func evaluate(in transaction: ReadTransaction, strict: Bool) throws -> (value: Value?, dependencies: Set<Dependency>) {
        let source = store.map { $0 === transaction.store ? transaction : ReadTransaction(store: $0, transaction: transaction.transaction) }
        return try DependencyRecorder.evaluate(path, of: ref, in: source ?? transaction, strict: strict)
    }

    /// Whether `entry`, written through `writer`, reports exactly this observation's value: same
    /// record and key path, and a value the kind's undefined-key hook cannot stand in for.
    func isExact(_ entry: JournalEntry, writer: Store) -> Bool {
        guard entry.keyPath == keyPath, entry.ref == ref else { return false }
        if entry.newValue == nil, (store ?? writer).kind(named: ref.kind)?.valueForUndefinedKey != nil { return false }
        return true
    }

    /// `change` (made by ``ObservedChange/init(exactly:)`` from an entry that ``isExact(_:)``),
    /// without the values this observation did not ask for.
    func change(from change: ObservedChange) -> ObservedChange {
        var change = change
        if !options.contains(.old) { change.oldValue = nil }
        if !options.contains(.new) { change.newValue = nil }
        return change
    }

    /// Calls the callback unless cancelled; an error it throws is dropped (the store has
    /// committed already, and the other observers still run).
    func notify(_ change: ObservedChange) {
        guard !isCancelled else { return }
        do { try callback(change) } catch {}
    }
}
