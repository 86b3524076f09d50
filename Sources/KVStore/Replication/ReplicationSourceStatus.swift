import Foundation

/// Where a replica stands with one of its sources: what it applied, what the source had when
/// last heard of, and the difference.
///
/// ```swift
/// for source in try replica.read({ try $0.replicationSources() }) {
///     print(source.source, source.appliedSequence, source.lag.map(String.init) ?? "unknown")
/// }
/// ```
public struct ReplicationSourceStatus: Sendable, Equatable {
    /// The source store's id.
    public var source: UUID
    /// The last source sequence applied here (the checkpoint).
    public var appliedSequence: UInt64
    /// The source's last sequence when last heard of (saved with the checkpoint), or nil when
    /// unknown (an open-ended stream does not say).
    public var sourceLastSequence: UInt64?

    /// The standing of a replica with source `source`.
    public init(source: UUID, appliedSequence: UInt64, sourceLastSequence: UInt64?) {
        self.source = source
        self.appliedSequence = appliedSequence
        self.sourceLastSequence = sourceLastSequence
    }

    /// Source entries not applied yet, as of the source's last known sequence; nil when unknown.
    public var lag: UInt64? {
        sourceLastSequence.map { $0 > appliedSequence ? $0 - appliedSequence : 0 }
    }
}

extension ReadTransaction {
    /// Every source applied to this store, in checkpoint key order, with its lag when known.
    /// - Throws: ``StoreError/Code/corrupt`` for a malformed checkpoint.
    public func replicationSources() throws -> [ReplicationSourceStatus] {
        try replicationCheckpoints().map { source, sequence in
            ReplicationSourceStatus(source: source, appliedSequence: sequence, sourceLastSequence: try sourceLastSequence(for: source))
        }
    }
}
