import Foundation

extension Store {
    /// The source this store is a replica of, or nil when it takes local writes (a primary or a
    /// promoted store).
    ///
    /// ```swift
    /// if let source = try replica.replicaSource { print("replica of \(source)") }
    /// ```
    public var replicaSource: UUID? {
        get throws {
            if case .replica(let source) = try read({ try $0.replicationRole() }) { return source }
            return nil
        }
    }

    /// Makes a replica writable: local writes are accepted from now on. Changes from its source
    /// can still be applied (checkpoints stay), but once local writes were made the two may
    /// diverge, and an apply that meets a divergence stops with ``JournalApplyError/Code/diverged``.
    ///
    /// ```swift
    /// try replica.promote()        // the source is gone: this copy takes over
    /// try replica.setValue("now writable", forKey: "note", of: ref)
    /// ```
    /// - Returns: false when the store was already promoted (nothing changes).
    /// - Throws: ``StoreError/Code/notAReplica`` for a store that never was a replica.
    @discardableResult
    public func promote() throws -> Bool {
        try write { txn in
            switch try txn.replicationRole() {
            case .primary:
                throw StoreError(.notAReplica, "not a replica: there is nothing to promote", path: path)
            case .promoted:
                return false
            case .replica:
                try txn.transaction.put(StoreLayout.MetaKey.promoted, StoreLayout.uint64(Date().timeIntervalSince1970.bitPattern), in: databases.meta)
                return true
            }
        }
    }
}
