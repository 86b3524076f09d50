/// What one commit means for the observers: the notifications to deliver, in journal order, and
/// the observers' new state (value, attachment), applied only once the commit succeeded.
struct ObservationBatch {
    var notifications: [(observation: KeyPathObservation, change: ObservedChange)] = []
    var kindNotifications: [(observation: KindObservation, changes: KindChanges)] = []
    var updates: [(observation: KeyPathObservation, value: Value?, dependencies: Set<Dependency>?)] = []
}

extension ObservationHub {
    /// Matches a transaction's journal entries against the observers, after its last change and
    /// before its commit (with the write lock held, so observers' state is stable); nil when
    /// nothing is observed.
    ///
    /// An observer whose every matching entry names exactly its record and key path gets one
    /// change per entry, with the entry's kind, values and indexes. Any other observer that a
    /// matching entry may affect has its key path evaluated once, at the end of the transaction,
    /// and gets one ``ChangeKind/setting`` — at its first matching entry's place in journal
    /// order — when the value differs from its value after the previous commit; its attachment
    /// is recomputed from what that evaluation read (re-attachment). Evaluation errors count as
    /// nil: a commit never fails because of an observer. Catalog entries
    /// (``ChangeKind/kindDeclared``) change no record: no observer is told of them.
    func batch(for transaction: WriteTransaction) -> ObservationBatch? {
        guard isObserved else { return nil }
        let entries = transaction.entries
        guard !entries.isEmpty else { return nil }
        var matches: [(entry: Int, observation: KeyPathObservation)] = []
        var kindObservers: [String: [KindObservation]] = [:]
        index.withLock { index in
            if !index.byRecord.isEmpty {
                var found: [KeyPathObservation] = []
                for (position, entry) in entries.enumerated() where entry.change != .kindDeclared {
                    found.removeAll(keepingCapacity: true)
                    observations(of: entry.ref, key: entry.keyPath.map(topLevelKey), in: index, into: &found)
                    for observation in found { matches.append((position, observation)) }
                }
            }
            if !index.byKind.isEmpty {
                for entry in entries where kindObservers[entry.ref.kind] == nil && entry.change != .kindDeclared {
                    if let observers = index.byKind[entry.ref.kind] { kindObservers[entry.ref.kind] = observers }
                }
            }
        }
        var batch = ObservationBatch()
        batch.notifications.reserveCapacity(matches.count)
        if !matches.isEmpty { match(matches, entries: entries, in: transaction, into: &batch) }
        for (kind, observers) in kindObservers {
            let changes = KindChanges(kind: kind, commitID: entries[0].commitID, entries: entries.filter { $0.ref.kind == kind && $0.change != .kindDeclared })
            if !changes.isEmpty { batch.kindNotifications += observers.map { ($0, changes) } }
        }
        return batch
    }

    /// Matches come grouped by entry, so each entry is copied once (a `JournalEntry` copy costs a
    /// dozen reference-count operations), and the change exact observers report is made once.
    private func match(
        _ matches: [(entry: Int, observation: KeyPathObservation)], entries: [JournalEntry],
        in transaction: WriteTransaction, into batch: inout ObservationBatch
    ) {
        let generation = nextGeneration()
        var current = matches[0].entry
        var entry = entries[current]
        for (position, observation) in matches {
            if position != current {
                current = position
                entry = entries[position]
            }
            if observation.scratchGeneration != generation {
                observation.scratchGeneration = generation
                observation.scratchExactOnly = true
                observation.scratchSeen = false
                observation.scratchValueKnown = false
            }
            if observation.scratchExactOnly && !observation.isExact(entry, writer: transaction.store) { observation.scratchExactOnly = false }
        }
        var exact: [KeyPathObservation] = []
        current = matches[0].entry
        entry = entries[current]
        var template: ObservedChange?
        for (position, observation) in matches where !observation.isCancelled {
            if position != current {
                current = position
                entry = entries[position]
                template = nil
            }
            if observation.scratchExactOnly {
                if !observation.scratchSeen {
                    observation.scratchSeen = true
                    exact.append(observation)
                }
                let change = template ?? ObservedChange(exactly: entry)
                template = change
                batch.notifications.append((observation, observation.change(from: change)))
                observation.scratchValueKnown = entry.change == .setting
                if observation.scratchValueKnown { observation.scratchValue = entry.newValue }
                continue
            }
            guard !observation.scratchSeen else { continue }
            observation.scratchSeen = true
            guard let (new, dependencies) = try? observation.evaluate(in: transaction, strict: false) else { continue }
            let old = observation.lastValue
            if new != old {
                let change = ObservedChange(
                    ref: observation.ref, keyPath: observation.keyPath, kind: .setting,
                    oldValue: observation.options.contains(.old) ? old : nil,
                    newValue: observation.options.contains(.new) ? new : nil,
                    commitID: entry.commitID, sequence: entry.sequence, origin: ChangeOrigin(entry.origin))
                batch.notifications.append((observation, change))
            }
            batch.updates.append((observation, new, dependencies))
        }
        // Exact entries give the new value of a setting; an index-level edit needs the whole array.
        for observation in exact {
            if observation.scratchValueKnown {
                batch.updates.append((observation, observation.scratchValue, nil))
            } else if let (value, _) = try? observation.evaluate(in: transaction, strict: false) {
                batch.updates.append((observation, value, nil))
            }
        }
        for observation in exact { observation.scratchValue = nil }
    }
}
