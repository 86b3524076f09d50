import KVStore

/// kvstore's side of every scenario, through its public API only.
final class KVStoreEngine {
    /// The store; closed and opened again with another durability by ``use(_:)``.
    var store: Store { current! }
    private var current: Store?
    private var durability = Durability.full
    private let options: Store.Options
    /// References of the base records, by index (made before timing, as an application holds them).
    let refs: [RecordRef]
    /// References and dictionaries of the insert pool.
    let poolRefs: [RecordRef]
    let poolValues: [[String: Value]]

    init(store: Store, options: Store.Options, baseCount: Int, pool: EncodedPool) {
        current = store
        self.options = options
        refs = (0 ..< baseCount).map(Dataset.ref)
        poolRefs = pool.indexes.map(Dataset.ref)
        poolValues = pool.indexes.map(Dataset.values)
    }

    /// `store.value(forKey:of:)`: one read transaction per read.
    func singleReads(_ workload: Workload) throws -> Int {
        var sum = 0
        for index in workload.readOrder {
            sum &+= Self.touch(try store.value(forKey: Dataset.readKey, of: refs[index]))
        }
        return sum
    }

    /// `batch` × `txn.value(forKey:of:)` per `store.read`.
    func batchedReads(_ workload: Workload) throws -> Int {
        var sum = 0
        for range in workload.batches(of: workload.readOrder.indices) {
            sum &+= try store.read { txn in
                var partial = 0
                for position in range {
                    partial &+= Self.touch(try txn.value(forKey: Dataset.readKey, of: refs[workload.readOrder[position]]))
                }
                return partial
            }
        }
        return sum
    }

    /// `batch` × `txn.setValue(.int(new), forKey:of:)` per `store.write`; every set changes the
    /// value, so every set is journaled.
    func batchedSets(_ workload: Workload) throws -> Int {
        for range in workload.batches(of: workload.setTargets.indices) {
            try store.write { txn in
                for position in range {
                    try txn.setValue(.int(workload.setValues[position]), forKey: Dataset.setKey, of: refs[workload.setTargets[position]])
                }
            }
        }
        return workload.setTargets.count
    }

    /// `batch` × `txn.insert(values, as:)` of new records per `store.write`.
    func batchedInserts(_ workload: Workload) throws -> Int {
        try insert(workload.insertRange, workload)
    }

    /// The same inserts for the companion scenario (11b), on the pool's second half.
    func batchedCompanionInserts(_ workload: Workload) throws -> Int {
        try insert(workload.companionInsertRange, workload)
    }

    private func insert(_ positions: Range<Int>, _ workload: Workload) throws -> Int {
        for range in workload.batches(of: positions) {
            try store.write { txn in
                for position in range { try txn.insert(poolValues[position], as: poolRefs[position]) }
            }
        }
        return positions.count
    }

    /// Closes the store and opens it again with `durability`, unless it already has it.
    func use(_ durability: Durability) throws {
        guard durability != self.durability else { return }
        var options = self.options
        options.durability = durability
        let path = store.path
        current = nil  // the last reference: the environment closes before it opens again
        current = try Store(path: path, options: options)
        self.durability = durability
    }

    @inline(__always)
    private static func touch(_ value: Value?) -> Int {
        switch value {
        case .string(let string)?: string.utf8.count &+ Int(string.utf8.first ?? 0)
        case .int(let int)?: Int(truncatingIfNeeded: int)
        default: 0
        }
    }
}
