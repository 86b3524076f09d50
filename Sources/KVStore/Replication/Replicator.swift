import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Replicates a store on this machine into a replica at a path: reads the source's journal
/// directly, in short read transactions, and applies it exactly once — each batch of whole source
/// commits in one replica transaction together with the checkpoint, so a replicator killed
/// anywhere and started again neither loses nor repeats a change.
///
/// ```swift
/// let source = try Store(path: "/data/orders")
/// let replicator = Replicator(source: source, replicaPath: "/backup/orders")
/// let status = try replicator.run()          // catches up, then returns
/// print(status.appliedSequence, status.lag)
///
/// var options = Replicator.Options()
/// options.follow = true                      // keep up with new commits until stopped
/// let follower = Replicator(source: source, replicaPath: "/backup/orders", options: options)
/// Thread { _ = try? follower.run { status in print("lag", status.lag) } }.start()
/// // … later, from any thread
/// follower.stop()
/// ```
/// The replica is created when nothing is at its path (a replica from the start, refusing local
/// writes even before anything was applied). It is seeded from a snapshot of the
/// source (``Store/writeSnapshot(to:)``, ``Store/seedReplica(at:fromSnapshot:options:)``) when
/// ``Options/seedsFromSnapshot`` asks for it for a new replica, when a new replica's source no
/// longer has its journal from the start, and whenever the replica is behind the source's
/// truncation point (it is then replaced whole, and replication continues from the snapshot's
/// sequence). The replica journals what it applies with each change's origin, so its observers
/// fire and replicas chain (A → B → C); changes that originated in the replica are skipped.
public final class Replicator: Sendable {
    /// How a replicator runs.
    public struct Options: Sendable {
        /// Keep following the source's new commits until ``Replicator/stop()`` (default false:
        /// return once the replica has caught up with what the source had).
        public var follow = false
        /// Seed a new replica (nothing at its path) from a snapshot of the source rather than by
        /// applying the source's whole journal (default false; a source whose journal no longer
        /// starts at its first entry is always seeded from a snapshot).
        public var seedsFromSnapshot = false
        /// The most entries read from the source in one read transaction and applied in one
        /// replica transaction (default 10,000), but for the rest of the commit the limit reached:
        /// whole commits are never split, so a larger commit goes in one transaction, with the
        /// commits before it in the batch.
        public var batchLimit = 10_000
        /// How often a following replicator polls the source while nothing commits (see
        /// ``JournalFollowOptions/pollInterval``).
        public var pollInterval: ClosedRange<Duration> = .milliseconds(1) ... .milliseconds(5)
        /// The options the replica is opened (and created) with.
        public var replicaOptions = Store.Options()

        /// The defaults: catch up once, batches of 10,000 entries, no snapshot for a new replica.
        public init() {}
    }

    /// Where a replicator stands, after each applied batch and when it returns.
    public struct Status: Sendable, Equatable {
        /// The source's store id.
        public var source: UUID
        /// The replica's store id (a new one after each reseed).
        public var replica: UUID
        /// Entries applied by this run.
        public var applied = 0
        /// Entries skipped by this run (already applied, derived, or made by the replica itself).
        public var skipped = 0
        /// The last source sequence applied to the replica (its checkpoint).
        public var appliedSequence: UInt64 = 0
        /// The source's last sequence when last read.
        public var sourceLastSequence: UInt64 = 0
        /// Times this run seeded the replica from a snapshot of the source.
        public var reseeds = 0

        /// Source entries not applied yet, as of the source's last sequence read.
        public var lag: UInt64 { sourceLastSequence > appliedSequence ? sourceLastSequence - appliedSequence : 0 }
    }

    /// The store replicated.
    public let source: Store
    /// The replica's directory.
    public let replicaPath: String
    /// How the replicator runs.
    public let options: Options
    private let stopped = Atomic<Bool>(false)

    /// A replicator of `source` into the store at `replicaPath` (created when nothing is there);
    /// ``run(progress:)`` starts it.
    public init(source: Store, replicaPath: String, options: Options = Options()) {
        self.source = source
        self.replicaPath = replicaPath
        self.options = options
    }

    /// Replicates until caught up (or, following, until ``stop()``), calling `progress` after each
    /// applied batch. A stopped replicator stays stopped. Run it on one thread at a time.
    /// - Returns: the last status.
    /// - Throws: ``JournalApplyError`` (`sameStore`; `diverged` when the replica's records
    ///   disagree with the source's changes), ``StoreError`` (the replica cannot be opened or
    ///   created; `badSnapshot` when a reseed would replace something that is not a replica of
    ///   the source).
    @discardableResult
    public func run(progress: ((Status) -> Void)? = nil) throws -> Status {
        var status = Status(source: source.id, replica: source.id)
        if Self.isSameDirectory(source.path, replicaPath) { throw sameStore }
        SeedingLeftovers.remove(beside: replicaPath)
        var behind = false
        while true {
            // A replica behind the truncation point is seeded again; the old one was released
            // at the end of the previous round (its directory is replaced).
            let replica = behind ? try reseed(&status) : try openReplica(&status)
            status.replica = replica.id
            guard replica.id != source.id else { throw sameStore }
            behind = try replicate(into: replica, &status, progress: progress)
            if !behind { return status }
        }
    }

    /// Applies the source's journal after the replica's checkpoint until caught up or stopped.
    /// - Returns: true when the replica turned out to be behind the source's truncation point.
    private func replicate(into replica: Store, _ status: inout Status, progress: ((Status) -> Void)?) throws -> Bool {
        let limit = max(1, options.batchLimit)
        let checkpoint = try replica.read { try $0.replicationCheckpoint(for: source.id) }
        var tail = JournalTail(store: source, position: checkpoint, batchLimit: limit, consumer: nil)
        var applier = JournalApplier(store: replica, mode: .replica(source: source.id))
        status.appliedSequence = checkpoint
        var backoff = PollBackoff(options.pollInterval)
        var prefetch: JournalPrefetch?
        while !isStopped {
            let batch: SourceEntries?
            do {
                if let next = prefetch {
                    prefetch = nil
                    (batch, tail) = try next.result()
                } else {
                    batch = try tail.pollSourceEntries()
                }
            } catch {
                if Self.isExpired(error) { return true }
                throw error
            }
            status.sourceLastSequence = max(tail.lastSequence, status.appliedSequence)
            guard let batch, !batch.isEmpty else {
                if !options.follow { break }
                Thread.sleep(forTimeInterval: backoff.next().seconds)
                continue
            }
            // The limit reached: more is waiting. Read it while this batch is applied.
            if batch.count >= limit { prefetch = JournalPrefetch(tail) }
            applier.sourceLastSequence = tail.lastSequence
            let outcome = try applier.apply(batch)
            status.applied += outcome.applied
            status.skipped += outcome.skipped
            status.appliedSequence = try replica.read { try $0.replicationCheckpoint(for: source.id) }
            progress?(status)
            backoff.reset()
            if !options.follow && batch.count < limit { break }
        }
        return false
    }

    /// Ends ``run(progress:)`` after the batch it is applying (within one poll interval when idle).
    public func stop() {
        stopped.store(true, ordering: .releasing)
    }

    /// Whether ``stop()`` was called.
    public var isStopped: Bool { stopped.load(ordering: .acquiring) }

    /// The replica at ``replicaPath``: opened; created when nothing is there; seeded from a
    /// snapshot when new and the options or the source's truncated journal ask for it.
    private func openReplica(_ status: inout Status) throws -> Store {
        var options = self.options.replicaOptions
        guard StoreDirectory.isEmpty(atPath: replicaPath) else {
            // An existing store, or something that is not one (refused by opening).
            options.createIfMissing = false
            return try Store(path: replicaPath, options: options)
        }
        let truncated = try source.read { try $0.oldestCoveredCursor() } > 0
        if self.options.seedsFromSnapshot || truncated {
            return try reseed(&status)
        }
        options.createIfMissing = true
        let replica = try Store(path: replicaPath, options: options)
        // A replica from the start, even of a source with nothing to apply yet.
        let sourceLast = try source.read { try $0.lastSequence() }
        try replica.write { txn in try txn.beginReplica(of: source.id, sourceLastSequence: sourceLast) }
        return replica
    }

    /// Seeds the replica from a snapshot of the source written beside it.
    private func reseed(_ status: inout Status) throws -> Store {
        let replica = try SeedingLeftovers.withSnapshotFile(beside: replicaPath) { descriptor, snapshot in
            do { try source.writeSnapshot(to: descriptor) } catch {
                // The copy fails writing (the replica's file system) more often than reading.
                guard let failure = FileWriting.errorNumber(of: error), FileWriting.isNoSpace(failure) else { throw error }
                throw FileWriting.failure(failure, writing: "a snapshot of \(source.path)", to: snapshot, path: replicaPath)
            }
            return try Store.seedReplica(at: replicaPath, fromSnapshot: snapshot, options: options.replicaOptions)
        }
        status.reseeds += 1
        status.replica = replica.id
        return replica
    }

    private var sameStore: JournalApplyError {
        JournalApplyError(.sameStore, "\(replicaPath) is the source store itself; a store cannot replicate itself")
    }

    /// Whether two paths name one directory (device and inode), however spelled.
    private static func isSameDirectory(_ a: String, _ b: String) -> Bool {
        func identity(_ path: String) -> [Int]? {
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                  let device = attributes[.systemNumber] as? Int, let inode = attributes[.systemFileNumber] as? Int else { return nil }
            return [device, inode]
        }
        guard let first = identity(a) else { return false }
        return first == identity(b)
    }

    private static func isExpired(_ error: any Error) -> Bool {
        (error as? JournalRetentionError)?.code == .cursorExpired
    }
}
