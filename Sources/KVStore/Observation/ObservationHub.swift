import LMDB
import Synchronization

/// The in-process observers of one LMDB environment, shared by every ``Store`` open on it, so
/// that a write through any of them notifies all observers.
///
/// Key-path observers are indexed by their dependencies — record, then top-level key — so a
/// journal entry finds its observers with two dictionary lookups; kind observers by kind.
/// With no observer at all, a commit costs one atomic load (``batch(for:)``).
final class ObservationHub: Sendable {
    struct Index {
        var byRecord: [RecordRef: [String: [KeyPathObservation]]] = [:]
        var byKind: [String: [KindObservation]] = [:]
    }

    let index = LockedState(Index())
    /// Observers of every sort; zero lets commits skip observation entirely.
    let observerCount = Atomic<Int>(0)
    /// Observers asking for prior notifications; zero lets will-change skip them.
    let priorCount = Atomic<Int>(0)
    let queue = DeliveryQueue<ObservationBatch>()
    /// Counts matched commits, to reset observers' per-commit scratch. Under the write lock.
    private let generationCounter = Atomic<UInt64>(0)

    private static let hubs = EnvironmentShared<ObservationHub>()

    /// The hub of `environment`, made on first use.
    static func shared(for environment: Environment) -> ObservationHub {
        hubs.object(for: environment) { ObservationHub() }
    }

    /// Whether anything observes the environment. An observer starts only while no write is
    /// open, so within a write this can turn false but never true.
    var isObserved: Bool { observerCount.load(ordering: .relaxed) > 0 }

    /// The next commit generation (called with the write lock held).
    func nextGeneration() -> UInt64 {
        generationCounter.add(1, ordering: .relaxed).newValue
    }

    // MARK: Registration

    /// Starts notifying `observation`, attached at `dependencies`. Called with the write lock held.
    func activate(_ observation: KeyPathObservation, value: Value?, dependencies: Set<Dependency>) {
        observation.lastValue = value
        index.withLock { index in
            observation.dependencies = dependencies
            for dependency in dependencies {
                index.byRecord[dependency.ref, default: [:]][dependency.key, default: []].append(observation)
            }
        }
        observerCount.add(1, ordering: .relaxed)
        if observation.options.contains(.prior) { priorCount.add(1, ordering: .relaxed) }
    }

    func activate(_ observation: KindObservation) {
        index.withLock { $0.byKind[observation.kind, default: []].append(observation) }
        observerCount.add(1, ordering: .relaxed)
    }

    /// Moves `observation` to `dependencies` (re-attachment), unless it was cancelled meanwhile.
    func reattach(_ observation: KeyPathObservation, to dependencies: Set<Dependency>) {
        index.withLock { index in
            guard !observation.isCancelled, observation.dependencies != dependencies else { return }
            for gone in observation.dependencies.subtracting(dependencies) { Self.detach(observation, from: gone, in: &index) }
            for new in dependencies.subtracting(observation.dependencies) {
                index.byRecord[new.ref, default: [:]][new.key, default: []].append(observation)
            }
            observation.dependencies = dependencies
        }
    }

    /// Stops notifying `observation`; idempotent.
    func remove(_ observation: KeyPathObservation) {
        guard observation.markCancelled() else { return }
        index.withLock { index in
            for dependency in observation.dependencies { Self.detach(observation, from: dependency, in: &index) }
            observation.dependencies = []
        }
        observerCount.subtract(1, ordering: .relaxed)
        if observation.options.contains(.prior) { priorCount.subtract(1, ordering: .relaxed) }
    }

    func remove(_ observation: KindObservation) {
        guard observation.markCancelled() else { return }
        index.withLock { index in
            index.byKind[observation.kind]?.removeAll { $0 === observation }
            if index.byKind[observation.kind]?.isEmpty == true { index.byKind[observation.kind] = nil }
        }
        observerCount.subtract(1, ordering: .relaxed)
    }

    /// Removes `observation` from one bucket, in place (no copy of the index's dictionaries).
    private static func detach(_ observation: KeyPathObservation, from dependency: Dependency, in index: inout Index) {
        index.byRecord[dependency.ref]?[dependency.key]?.removeAll { $0 === observation }
        if index.byRecord[dependency.ref]?[dependency.key]?.isEmpty == true {
            index.byRecord[dependency.ref]?[dependency.key] = nil
            if index.byRecord[dependency.ref]?.isEmpty == true { index.byRecord[dependency.ref] = nil }
        }
    }

    /// The key-path observers attached to the record's `key`, or to any of its keys when nil.
    func observations(of ref: RecordRef, key: String?, in index: Index, into result: inout [KeyPathObservation]) {
        guard let keys = index.byRecord[ref] else { return }
        if let key {
            if let found = keys[key] { result.append(contentsOf: found) }
        } else {
            for found in keys.values { result.append(contentsOf: found) }
        }
    }

    // MARK: Delivery

    /// Applies a committed batch's state changes and queues its notifications. Called with the
    /// write lock held, right after the commit.
    /// - Returns: the ticket to deliver through, or nil.
    func committed(_ batch: ObservationBatch) -> UInt64? {
        for update in batch.updates { apply(update) }
        return enqueue(batch)
    }

    /// Queues a committed batch's notifications (its state changes were applied already).
    /// Called with the write lock held.
    /// - Returns: the ticket to deliver through, or nil.
    func enqueue(_ batch: ObservationBatch) -> UInt64? {
        guard !batch.notifications.isEmpty || !batch.kindNotifications.isEmpty else { return nil }
        return queue.enqueue(batch)
    }

    /// The observers' state that a batch's updates replaced, for ``restore(_:)``.
    struct ReplacedState {
        fileprivate var observers: [(observation: KeyPathObservation, value: Value?, dependencies: Set<Dependency>?)] = []
    }

    /// Applies a batch's state changes before its commit is final: in a group commit, each
    /// write's changes merge into the group's transaction, and the next write's batch must be
    /// matched against the observers' state after them. Called with the write lock held.
    /// - Returns: what they replaced, to restore if the group's transaction is aborted.
    func applyMerged(_ batch: ObservationBatch) -> ReplacedState {
        var replaced = ReplacedState()
        for update in batch.updates {
            let dependencies = update.dependencies == nil ? nil : index.withLock { _ in update.observation.dependencies }
            replaced.observers.append((update.observation, update.observation.lastValue, dependencies))
            apply(update)
        }
        return replaced
    }

    /// Puts back the state ``applyMerged(_:)`` replaced (batches restored last first).
    func restore(_ replaced: ReplacedState) {
        for (observation, value, dependencies) in replaced.observers.reversed() {
            observation.lastValue = value
            if let dependencies { reattach(observation, to: dependencies) }
        }
    }

    private func apply(_ update: (observation: KeyPathObservation, value: Value?, dependencies: Set<Dependency>?)) {
        update.observation.lastValue = update.value
        if let dependencies = update.dependencies { reattach(update.observation, to: dependencies) }
    }

    /// Delivers queued batches through `ticket` (see ``DeliveryQueue``).
    func deliver(through ticket: UInt64) {
        queue.deliver(through: ticket) { batch in
            for notification in batch.notifications { notification.observation.notify(notification.change) }
            for notification in batch.kindNotifications { notification.observation.notify(notification.changes) }
        }
    }
}

/// The top-level key a journal entry's key path changes (`address` for `address.city`).
func topLevelKey(of keyPath: String) -> String {
    guard let dot = keyPath.utf8.firstIndex(of: UInt8(ascii: ".")) else { return keyPath }
    return String(keyPath[..<dot])
}
