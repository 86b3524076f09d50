import Foundation

extension Replicator.Status {
    /// The status of a replication of `source` into `replica` that has done nothing yet — for
    /// other replicators that report the same way (over TCP: `KVStoreNetwork`'s `JournalClient`).
    public init(source: UUID, replica: UUID) {
        self.init(source: source, replica: replica, applied: 0)
    }
}
