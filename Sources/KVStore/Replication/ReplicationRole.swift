import Foundation
import LMDB

/// Whether a store takes local writes, and why.
///
/// ```swift
/// switch try store.read({ try $0.replicationRole() }) {
/// case .primary: print("writable")
/// case .replica(let source): print("a replica of \(source)")
/// case .promoted(let source): print("promoted, was a replica of \(source)")
/// }
/// ```
public enum ReplicationRole: Sendable, Equatable {
    /// Not a replica: local writes are made here.
    case primary
    /// A replica of the source store with this id: only changes applied from its sources change
    /// its records; local writes fail with ``StoreError/Code/replica``.
    case replica(of: UUID)
    /// A former replica of the source with this id, promoted: it takes local writes again.
    case promoted(from: UUID)
}

extension ReadTransaction {
    /// This store's role: primary, replica (refusing local writes) or promoted.
    /// - Throws: ``StoreError/Code/corrupt`` when `replica-of` is not a store id.
    public func replicationRole() throws -> ReplicationRole {
        guard let raw = try transaction.value(forKey: StoreLayout.MetaKey.replicaOf, in: databases.meta) else { return .primary }
        guard let source = UUID(uuidString: String(decoding: raw, as: UTF8.self)) else {
            throw StoreError(.corrupt, "the replica-of entry in meta is not a store id", path: store.path)
        }
        return try transaction.withValue(forKey: StoreLayout.MetaKey.promoted, in: databases.meta) { $0 == nil }
            ? .replica(of: source) : .promoted(from: source)
    }

    /// The last sequence of `source`'s journal when this store last heard of it (an apply
    /// records it with every checkpoint), or nil when unknown.
    public func sourceLastSequence(for source: UUID) throws -> UInt64? {
        try transaction.uint64(forKey: StoreLayout.MetaKey.sourceLast(source), in: databases.meta)
    }
}

extension WriteTransaction {
    /// Refuses a local change of records on a replica; applied changes pass.
    func checkLocalWriteAllowed() throws {
        guard !isApplying, case .replica(let source) = try replicationRole() else { return }
        throw StoreError(
            .replica,
            "a replica of source \(source.lowercasedText): local writes are refused (kvstore promote \(store.path) makes it writable)",
            path: store.path)
    }

    /// Makes this store a replica of `source` unless it already has a role (a replica of another
    /// source stays one of its first; a promoted store stays writable).
    func becomeReplica(of source: UUID) throws {
        guard try transaction.withValue(forKey: StoreLayout.MetaKey.replicaOf, in: databases.meta, { $0 == nil }) else { return }
        try transaction.put(StoreLayout.MetaKey.replicaOf, Array(source.lowercasedText.utf8), in: databases.meta)
    }

    /// Makes a new, empty store a replica of `source` that has applied nothing yet (checkpoint 0).
    func beginReplica(of source: UUID, sourceLastSequence: UInt64) throws {
        try becomeReplica(of: source)
        let applied = try replicationCheckpoint(for: source)
        try setReplicationCheckpoint(applied, for: source)
        try setSourceLastSequence(sourceLastSequence, applied: applied, for: source)
    }

    /// Records `source`'s last sequence as far as known, never below what was applied.
    func setSourceLastSequence(_ last: UInt64?, applied: UInt64, for source: UUID) throws {
        guard let known = try last ?? sourceLastSequence(for: source) else { return }
        try transaction.put(StoreLayout.MetaKey.sourceLast(source), StoreLayout.uint64(max(known, applied)), in: databases.meta)
    }
}
