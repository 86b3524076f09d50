import Foundation
import LMDB

/// Snapshots, and replicas seeded from them: how a new replica, or one left behind the source's
/// truncation point, starts without the source's whole journal.
extension Store {
    /// Writes a consistent, compacted copy of this store's data file to `fileDescriptor` (a file
    /// or a pipe): one snapshot taken in a read transaction of its own while writers go on. The
    /// copy's own metadata says whose it is and how far it goes (its store id and last journal
    /// sequence); ``seedReplica(at:fromSnapshot:options:)`` makes a replica of it.
    ///
    /// ```swift
    /// let fd = open("/tmp/snapshot.mdb", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    /// try source.writeSnapshot(to: fd)
    /// close(fd)
    /// let replica = try Store.seedReplica(at: "/tmp/replica", fromSnapshot: "/tmp/snapshot.mdb")
    /// ```
    /// - Throws: ``StoreError/Code/storage`` when the copy cannot be written.
    public func writeSnapshot(to fileDescriptor: Int32) throws {
        do { try environment.copy(toFileDescriptor: fileDescriptor, compacting: true) } catch {
            throw StoreError(.storage, "cannot write a snapshot: \(error)", path: path, underlying: error)
        }
    }

    /// Makes the store at `path` a replica seeded from `snapshotFile`, a data file written by
    /// ``writeSnapshot(to:)``: it holds the snapshot's records, has a store id of its own, and its
    /// checkpoint for the snapshot's store is the snapshot's last sequence, so applying the
    /// source's journal continues from there.
    ///
    /// ```swift
    /// let replica = try Store.seedReplica(at: "/tmp/replica", fromSnapshot: "/tmp/snapshot.mdb")
    /// try replica.read { try $0.replicationSources() }   // [source: applied = the snapshot's last sequence]
    /// ```
    /// The replica's journal starts empty, as if truncated through the snapshot's last sequence
    /// (its own sequences continue after it): the source's history is not its own, and `verify`
    /// does not replay it. The source's consumers, checkpoints and role are left out.
    ///
    /// `path` may be absent, an empty directory, or a replica of the same source (one left behind
    /// the source's truncation point), which is replaced whole: the new store is built beside it
    /// and exchanged with it, so `path` never holds half a store. Nothing else may have the old
    /// replica open while it is replaced (it would go on with the old copy).
    /// - Throws: ``StoreError/Code/badSnapshot`` when the file is not a store's data file, or `path`
    ///   holds something other than a replica of the snapshot's store; nothing is created then.
    @discardableResult
    public static func seedReplica(at path: String, fromSnapshot snapshotFile: String, options: Store.Options = Store.Options()) throws -> Store {
        try StorePath.refuseDanglingLink(path)
        let path = StorePath.followingLink(path)  // a link to the replica stays a link
        let building = PathComponents(path).hiddenSibling(".seeding-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(atPath: building) }
        try SeedingLeftovers.holdingLock(on: building) {
            let source = try prepareSeed(building, from: snapshotFile, options: options)
            try checkReplaceable(path, by: source, options: options)
            try DirectoryExchange.replace(path, with: building)
        }
        return try Store(path: path, options: options)
    }

    /// Builds the seeded store in `directory` from a copy of `snapshotFile`.
    /// - Returns: the snapshot's store id.
    private static func prepareSeed(_ directory: String, from snapshotFile: String, options: Store.Options) throws -> UUID {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: snapshotFile, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw StoreError(.badSnapshot, "\(snapshotFile): no snapshot file there", path: nil)
        }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try FileManager.default.copyItem(atPath: snapshotFile, toPath: (directory as NSString).appendingPathComponent("data.mdb"))
        } catch {
            if let failure = FileWriting.errorNumber(of: error), FileWriting.isNoSpace(failure) {
                throw FileWriting.failure(failure, writing: "a copy of the snapshot", to: (directory as NSString).appendingPathComponent("data.mdb"), path: nil)
            }
            throw StoreError(.badSnapshot, "\(snapshotFile): cannot copy the snapshot: \(error.localizedDescription)")
        }
        var seedOptions = options
        seedOptions.createIfMissing = false
        seedOptions.readOnly = false
        seedOptions.kinds = []
        let seed: Store
        do { seed = try Store(path: directory, options: seedOptions) } catch {
            throw StoreError(.badSnapshot, "\(snapshotFile) is not a store's snapshot: \(error.message)")
        }
        do { return try seed.write { txn in try txn.makeSeededReplica() } } catch {
            throw StoreError(.badSnapshot, "\(snapshotFile) is not a sound store snapshot: \(error)")
        }
    }

    /// Checks `path` may be replaced by a replica of `source`: nothing there, an empty
    /// directory, or a replica of `source`.
    private static func checkReplaceable(_ path: String, by source: UUID, options: Store.Options) throws {
        guard !StoreDirectory.isEmpty(atPath: path) else { return }
        var options = options
        options.createIfMissing = false
        let role: ReplicationRole
        do { role = try Store(path: path, options: options).read { try $0.replicationRole() } } catch {
            throw StoreError(.badSnapshot, "cannot seed a replica there: \(error)", path: path)
        }
        guard role == .replica(of: source) else {
            throw StoreError(.badSnapshot, "holds a store that is not a replica of source \(source.lowercasedText) (\(role.summary)): seed a replica at a new path", path: path)
        }
    }
}

extension ReplicationRole {
    /// A few words for a message: `a primary store`, `a replica of X`, `promoted from X`.
    var summary: String {
        switch self {
        case .primary: "a primary store"
        case .replica(let source): "a replica of \(source.lowercasedText)"
        case .promoted(let source): "a promoted replica of \(source.lowercasedText)"
        }
    }
}

extension WriteTransaction {
    /// Turns this copy of a source's data file into a new replica of it: a store id of its own,
    /// the journal emptied (its last sequence stays: it reads as truncated), the source's
    /// consumers, checkpoints and role dropped, and a checkpoint at the source's last sequence.
    /// - Returns: the source's store id.
    func makeSeededReplica() throws -> UUID {
        let source = store.id
        let last = try lastSequence()
        try transaction.empty(databases.journal)
        var dropped: [[UInt8]] = [StoreLayout.MetaKey.replicaOf, StoreLayout.MetaKey.promoted]
        for prefix in [StoreLayout.MetaKey.consumerPrefix, StoreLayout.MetaKey.checkpointPrefix, StoreLayout.MetaKey.sourceLastPrefix] {
            try transaction.scan(databases.meta, prefix: prefix) { key, _ in dropped.append(Array(key)); return true }
        }
        for key in dropped { try transaction.delete(key, in: databases.meta) }
        try transaction.put(StoreLayout.MetaKey.storeID, withUnsafeBytes(of: UUID().uuid, Array.init), in: databases.meta)
        try transaction.put(StoreLayout.MetaKey.created, StoreLayout.uint64(Date().timeIntervalSince1970.bitPattern), in: databases.meta)
        try setReplicationCheckpoint(last, for: source)
        try setSourceLastSequence(last, applied: last, for: source)
        try becomeReplica(of: source)
        return source
    }
}
