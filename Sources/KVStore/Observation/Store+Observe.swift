import LMDB

/// In-process observation (<doc:Observation>): key paths of records, and kinds.
///
/// Delivery: after each commit, on a writing thread and outside the write lock, in journal
/// order; each observer sees each change once, and the writing call returns only after its own
/// commit's notifications ran (KVO's "by the time the setter returns"). When several threads
/// write, one delivers at a time — every commit queued up to its own, other threads' included —
/// and the others wait, so commits arrive in order.
/// A callback may write to the store: its write commits and returns at once, and its
/// notifications are delivered after the current commit's. A callback that throws has its error
/// dropped (the store has committed; the other observers still run). A callback must not wait for
/// another thread's write to finish (that write waits for the callback's delivery to end).
///
/// Observers see writes made through any ``Store`` open on the same directory in this process.
/// Other processes' writes are not observed here (durable consumers follow the journal instead).
extension Store {
    /// Observes the value at `keyPath` of a record, which need not exist yet (its insertion is a
    /// change like any other).
    ///
    /// The key path goes through nested dictionaries and references (`"customer.address.city"`);
    /// when an intermediate value changes — a reference now points to another record — the
    /// observation re-attaches to the new path. Dependent keys declared in
    /// ``Kind/keyPathsAffecting`` notify when any of their inputs change. See ``ObservedChange``
    /// for what each change carries.
    ///
    /// ```swift
    /// let token = try store.observe(invoice, keyPath: "customer.name", options: [.initial, .old, .new]) { change in
    ///     print(change.oldValue?.stringValue ?? "none", "→", change.newValue?.stringValue ?? "none")
    /// }
    /// try store.setValue("Ada Lovelace", forKey: "name", of: ada)   // prints before returning
    /// ```
    /// Observation starts once the writes in progress have committed (it waits for the write
    /// lock): it sees every later commit. With ``ObservationOptions/initial`` the callback gets
    /// the current value before `observe` returns (unless `observe` is called from a callback,
    /// where it comes after the notification under way).
    ///
    /// - Parameters:
    ///   - ref: the record; it need not exist yet.
    ///   - keyPath: a dot-separated key path from the record (through dictionaries and references).
    ///   - options: what to report (default: new values).
    ///   - callback: runs on a writing thread (see Delivery above); keep it short.
    /// - Returns: a token; the observation lasts until it is cancelled or released.
    /// - Throws: ``KeyValueCodingError`` for a malformed key path, or one that cannot be evaluated
    ///   now (a key into a scalar, an undefined key of a closed kind); ``StoreError/Code/nestedWrite``
    ///   inside a transaction. Once observing, a key path that cannot be evaluated reads as nil.
    public func observe(
        _ ref: RecordRef, keyPath: String, options: ObservationOptions = [.new],
        _ callback: @escaping @Sendable (ObservedChange) throws -> Void
    ) throws -> ObservationToken {
        let path = try KeyValuePath(keyPath)
        let observation = KeyPathObservation(
            ref: ref, keyPath: keyPath, path: path, options: options, store: self, callback: callback)
        let hub = self.observation
        var ticket: UInt64?
        try withWritesPaused { txn in
            try observation.evaluate(in: ReadTransaction(store: self, transaction: txn), strict: true)
        } then: { value, dependencies in
            hub.activate(observation, value: value, dependencies: dependencies)
            if options.contains(.initial) {
                let initial = ObservedChange(
                    ref: ref, keyPath: keyPath, newValue: options.contains(.new) ? value : nil, isInitial: true)
                ticket = hub.queue.enqueue(ObservationBatch(notifications: [(observation, initial)]))
            }
        }
        if let ticket { hub.deliver(through: ticket) }
        return ObservationToken { hub.remove(observation) }
    }

    /// Observes the records of a kind: after each commit that changed some, the ids of those
    /// inserted, deleted and modified (see ``KindChanges``).
    ///
    /// ```swift
    /// let token = try store.observeKind("invoice") { changes in
    ///     if !changes.inserted.isEmpty { print("new invoices:", changes.inserted.sorted()) }
    /// }
    /// ```
    /// - Throws: ``RecordRefError`` for an invalid kind name; ``StoreError/Code/nestedWrite``
    ///   inside a transaction.
    public func observeKind(_ kind: String, _ callback: @escaping @Sendable (KindChanges) throws -> Void) throws -> ObservationToken {
        try RecordRef.validate(kind: kind)
        let observation = KindObservation(kind: kind, callback: callback)
        let hub = self.observation
        try withWritesPaused { _ in () } then: { hub.activate(observation) }
        return ObservationToken { hub.remove(observation) }
    }

    /// Runs `body` in a transaction while no write can commit, then `then` with its result still
    /// before any: so an observer starts exactly between two commits.
    private func withWritesPaused<T>(
        _ body: (LMDB.Transaction) throws -> T, then: (T) -> Void
    ) throws {
        if environment.options.readOnly {
            // Nothing in this process can write to a read-only environment.
            then(try read { try body($0.transaction) })
            return
        }
        var result: T?
        do {
            try environment.write({ txn in result = try body(txn) }, didCommit: { then(result!) })
        } catch let error as LMDBError {
            throw writeError(error)
        }
    }
}
