import Foundation

extension ReadTransaction {
    /// The last sequence of `source`'s journal applied to this store (0 when none was).
    ///
    /// ```swift
    /// let applied = try replica.read { try $0.replicationCheckpoint(for: sourceID) }
    /// ```
    public func replicationCheckpoint(for source: UUID) throws -> UInt64 {
        try transaction.uint64(forKey: StoreLayout.MetaKey.checkpoint(source), in: databases.meta) ?? 0
    }

    /// Every source applied to this store, with the last of its sequences applied, in key order.
    /// - Throws: ``StoreError/Code/corrupt`` for a checkpoint that is not a source id and a UInt64.
    public func replicationCheckpoints() throws -> [(source: UUID, sequence: UInt64)] {
        let prefix = StoreLayout.MetaKey.checkpointPrefix
        var result: [(source: UUID, sequence: UInt64)] = []
        try transaction.scan(databases.meta, prefix: prefix) { key, value in
            guard let source = UUID(uuidString: String(decoding: key.dropFirst(prefix.count), as: UTF8.self)),
                  let sequence = StoreLayout.uint64(from: value) else {
                throw StoreError(.corrupt, "a replication checkpoint in meta is malformed", path: store.path)
            }
            result.append((source, sequence))
            return true
        }
        return result
    }
}

extension WriteTransaction {
    /// Records that `source`'s journal is applied through `sequence`.
    func setReplicationCheckpoint(_ sequence: UInt64, for source: UUID) throws {
        try transaction.put(StoreLayout.MetaKey.checkpoint(source), StoreLayout.uint64(sequence), in: databases.meta)
    }
}
