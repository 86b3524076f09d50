import Foundation

/// Replication checkpoints in the `meta` database: key `replica/<source store id>` (the UUID in
/// lowercase, as text), value the last applied source sequence (UInt64 LE). Written in the same
/// transaction as the changes it accounts for, so applying is exactly-once.
extension StoreLayout.MetaKey {
    static let checkpointPrefix = Array("replica/".utf8)
    static func checkpoint(_ source: UUID) -> [UInt8] { checkpointPrefix + Array(source.uuidString.lowercased().utf8) }
}

extension ReadTransaction {
    /// The last sequence of `source`'s journal applied to this store (0 when none was).
    ///
    /// ```swift
    /// let applied = try replica.read { try $0.replicationCheckpoint(for: sourceID) }
    /// ```
    public func replicationCheckpoint(for source: UUID) throws -> UInt64 {
        StoreLayout.uint64(from: try transaction.get(StoreLayout.MetaKey.checkpoint(source), in: databases.meta)) ?? 0
    }
}

extension WriteTransaction {
    /// Records that `source`'s journal is applied through `sequence`.
    func setReplicationCheckpoint(_ sequence: UInt64, for source: UUID) throws {
        try transaction.put(StoreLayout.MetaKey.checkpoint(source), StoreLayout.uint64(sequence), in: databases.meta)
    }
}
