import KVStore

/// kvstore's side of the whole-record, scan, aggregate and small-commit scenarios.
extension KVStoreEngine {
    /// `batch` × `txn.record(ref)` (the whole dictionary decoded) per `store.read`; sums key counts.
    func batchedRecordReads(_ workload: Workload) throws -> Int {
        var sum = 0
        for range in workload.batches(of: workload.readOrder.indices) {
            sum &+= try store.read { txn in
                var partial = 0
                for position in range { partial &+= try txn.record(refs[workload.readOrder[position]])?.count ?? 0 }
                return partial
            }
        }
        return sum
    }

    /// `txn.forEachRecord(ofKind:)`: every record of the kind decoded; sums key counts.
    func scan(_ workload: Workload) throws -> Int {
        try store.read { txn in
            var sum = 0
            try txn.forEachRecord(ofKind: Dataset.kind) { record in
                sum &+= record.values.count
                return true
            }
            return sum
        }
    }

    /// `store.value(forKeyPath: "@sum.k2", ofKind:)`.
    func sum(_ workload: Workload) throws -> Int {
        let sum = try store.value(forKeyPath: "@sum." + Dataset.sumKey, ofKind: Dataset.kind)
        if case .int(let int)? = sum { return Int(int) }
        guard case .double(let double)? = sum else {
            throw SetupError("@sum.\(Dataset.sumKey) is not an int")
        }
        return Int(double)
    }

    /// `store.setValue(_:forKey:of:)`: one set per commit, one writer.
    func singleCommits(_ workload: Workload) throws -> Int {
        for position in 0 ..< workload.commits {
            try store.setValue(.int(workload.setValues[position]), forKey: Dataset.setKey, of: refs[workload.setTargets[position]])
        }
        return workload.commits
    }

    /// `store.setValue(_:forKey:of:)` from `workload.writers` threads at once, one set per commit
    /// (a group commit in the store coalesces them; each call returns once its commit is durable).
    func concurrentCommits(_ workload: Workload) throws -> Int {
        // The threads hold the engine, not the store: a thread's closure may outlive its run, and
        // the store must close when ``use(_:)`` reopens it.
        try workload.onWriterThreads { position in
            try self.store.setValue(.int(workload.setValues[position]), forKey: Dataset.setKey, of: self.refs[workload.setTargets[position]])
        }
        return workload.commits
    }
}
