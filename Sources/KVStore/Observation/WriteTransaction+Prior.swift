/// Will-change: the tracker's pair, and the prior notifications of ``ObservationOptions/prior``.
extension WriteTransaction {
    /// Opens (or nests into) a will/did-change pair; when it is the outermost one, observers that
    /// asked for ``ObservationOptions/prior`` are told before the change is made.
    func willChange(
        _ key: ChangeTracker.Key, oldValue: @autoclosure () throws -> Value?, stored: Bool,
        change: ChangeKind = .setting, indexes: [Int]? = nil
    ) rethrows {
        if try tracker.willChange(key, oldValue: try oldValue(), stored: stored, change: change, indexes: indexes) {
            announce(key.ref, keyPath: key.keyPath, change: change, indexes: indexes)
        }
    }

    /// Sends the prior notifications for a change about to be made to `keyPath` of the record (to
    /// the whole record, when nil: its insertion or deletion). Costs one atomic load when no
    /// observer asked for them.
    func announce(_ ref: RecordRef, keyPath: String?, change: ChangeKind, indexes: [Int]? = nil) {
        let hub = store.observation
        guard hub.priorCount.load(ordering: .relaxed) > 0 else { return }
        var found: [KeyPathObservation] = []
        hub.index.withLock { index in
            hub.observations(of: ref, key: keyPath.map(topLevelKey), in: index, into: &found)
        }
        var notified = Set<ObjectIdentifier>()
        for observation in found where observation.options.contains(.prior) && !observation.isCancelled {
            guard notified.insert(ObjectIdentifier(observation)).inserted else { continue }
            priorsSent += 1
            guard priorsSent > priorsSentBefore else { continue }  // sent by a run before the map grew
            let exact = keyPath == observation.keyPath && ref == observation.ref
            var old: Value?
            if observation.options.contains(.old) {
                old = (try? observation.evaluate(in: self, strict: false))?.value
            }
            observation.notify(ObservedChange(
                ref: observation.ref, keyPath: observation.keyPath, kind: exact ? change : .setting,
                oldValue: old, indexes: exact ? indexes : nil, isPrior: true, origin: ChangeOrigin(origin)))
        }
    }
}
