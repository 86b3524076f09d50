import Foundation
import KVStore
import PostgresNIO

/// What the hub said to an upload.
public struct HubUploadResult: Sendable, Equatable {
    /// How many of the changes were new to the hub (the others it had already: a retried batch).
    public let newChanges: Int
    /// The hub's clock (`clock_timestamp()`) as it committed the batch.
    public let hubTime: Date
}

extension HubClient {
    /// Uploads a batch of one store's changes in one hub transaction: each change is inserted
    /// unless the hub already has its origin and sequence (`ON CONFLICT DO NOTHING`), so a batch
    /// sent again after a lost acknowledgement takes effect once. The store's row in `stores` is
    /// created or updated (`last_seen`, `uploaded_through`), and followers are woken (`NOTIFY
    /// kvstore_sync`) when something was new — all in the same transaction.
    ///
    /// Advance the local upload cursor only after this returns: then the hub has committed.
    ///
    /// - Parameters:
    ///   - changes: the batch (any size the server accepts; a few thousand rows per call upload
    ///     fastest); every change's ``HubChange/origin`` must be `store`.
    ///   - store: the uploading store's id.
    /// - Throws: ``SyncError``; ``SyncError/Code/unrepresentableValue`` or
    ///   ``SyncError/Code/refused`` for a change that cannot be stored (naming its sequence): a
    ///   key containing U+0000, a sequence twice in the batch; ``SyncError/Code/restoredOrCopied`` for one the hub holds
    ///   with other content (the store was restored from an older copy); then nothing of the
    ///   batch is stored.
    @discardableResult
    public func upload(_ changes: [HubChange], from store: UUID) async throws(SyncError) -> HubUploadResult {
        let columns = try UploadColumns(changes, from: store, hub: configuration.name)
        let rows = try await rows(PostgresQuery(unsafeSQL: uploadSQL, binds: columns.bindings(store: store)))
        guard let row = rows.first, let (newChanges, hubTime, _, conflict) = try? row.decode((Int, Date, Int, Int64?).self) else {
            throw SyncError(.refused, hub: configuration.name, "the hub answered the upload unexpectedly")
        }
        if let conflict, let change = changes.first(where: { $0.originSequence == UInt64(conflict) }) {
            throw refusal(.restoredOrCopied, of: change, hub: configuration.name, "the hub holds change \(conflict) of store \(store) with other "
                              + "content (was the store restored from an older copy, or copied with its id?)")
        }
        return HubUploadResult(newChanges: newChanges, hubTime: hubTime)
    }

    /// One statement, so one transaction, whatever else shares the connection. A change the hub
    /// already holds under the same origin and sequence with other content (compared as the hub
    /// stores it: `jsonb` as text, so `1` and `1.0` differ) stores nothing of the batch and is
    /// returned in the last column; the same content again is a retry and skipped. (An upload of
    /// the same store committing at the same moment is not compared: its rows are skipped.)
    private var uploadSQL: String {
        """
        WITH batch AS (
            SELECT origin_seq, stamp_wall, stamp_counter, kind, record_id, CASE WHEN has_key THEN key END AS key, change,
                   CASE WHEN has_value THEN value::jsonb END AS value
            FROM unnest($2::int8[], $3::int8[], $4::int4[], $5::text[], $6::text[], $7::bool[], $8::text[],
                        $9::text[], $10::bool[], $11::text[])
                AS b(origin_seq, stamp_wall, stamp_counter, kind, record_id, has_key, key, change, has_value, value)
        ), conflict AS (
            SELECT min(b.origin_seq) AS origin_seq
            FROM batch b JOIN \(tables.changes) c ON c.origin = $1::uuid AND c.origin_seq = b.origin_seq
            WHERE (c.stamp_wall, c.stamp_counter, c.kind, c.record_id, c.key, c.change, c.value::text)
                  IS DISTINCT FROM (b.stamp_wall, b.stamp_counter, b.kind, b.record_id, b.key, b.change, b.value::text)
        ), inserted AS (
            INSERT INTO \(tables.changes) (origin, origin_seq, stamp_wall, stamp_counter, kind, record_id, key, change, value)
            SELECT $1::uuid, origin_seq, stamp_wall, stamp_counter, kind, record_id, key, change, value
            FROM batch
            WHERE (SELECT origin_seq FROM conflict) IS NULL
            ON CONFLICT (origin, origin_seq) DO NOTHING
            RETURNING 1
        ), seen AS (
            INSERT INTO \(tables.stores) AS s (store_id, first_seen, last_seen, uploaded_through)
            SELECT $1::uuid, clock_timestamp(), clock_timestamp(), $12::int8
            WHERE (SELECT origin_seq FROM conflict) IS NULL
            ON CONFLICT (store_id) DO UPDATE
                SET last_seen = excluded.last_seen,
                    uploaded_through = greatest(s.uploaded_through, excluded.uploaded_through)
            RETURNING 1
        ), counted AS (
            SELECT count(*)::int8 AS new_changes FROM inserted
        )
        SELECT counted.new_changes, clock_timestamp(),
               (SELECT count(*)::int8 FROM seen)
                 + (SELECT count(*)::int8 FROM (SELECT pg_notify('kvstore_sync', $1::text) WHERE counted.new_changes > 0) AS n),
               (SELECT origin_seq FROM conflict)
        FROM counted
        """
    }
}

/// The error for a change of a batch that cannot be uploaded.
private func refusal(_ code: SyncError.Code, of change: HubChange, hub: String, _ problem: String) -> SyncError {
    SyncError(code, hub: hub, "cannot upload change \(change.originSequence) of \(change.record): \(problem)")
}

/// A batch as the column arrays the upload statement unnests (postgres-nio encodes no NULL
/// inside an array: optional keys and values travel with a flag).
private struct UploadColumns {
    var sequences: [Int64] = [], walls: [Int64] = [], counters: [Int32] = []
    var kinds: [String] = [], ids: [String] = [], hasKey: [Bool] = [], keys: [String] = []
    var changes: [String] = [], hasValue: [Bool] = [], values: [String] = []

    init(_ batch: [HubChange], from store: UUID, hub: String) throws(SyncError) {
        var seen = Set<UInt64>()
        for change in batch {
            func refuse(_ code: SyncError.Code, _ problem: String) -> SyncError { refusal(code, of: change, hub: hub, problem) }
            guard change.origin == store else { throw refuse(.refused, "it comes from store \(change.origin), not \(store)") }
            guard change.originSequence <= UInt64(Int64.max) else { throw refuse(.refused, "its sequence is out of range") }
            // The hub would keep the first and drop the other without a word (ON CONFLICT DO NOTHING).
            guard seen.insert(change.originSequence).inserted else {
                throw refuse(.refused, "the batch holds sequence \(change.originSequence) twice")
            }
            guard change.stamp.wall <= HubStamp.maxWall else { throw refuse(.refused, "its stamp's wall time is above 2^48") }
            if let problem = change.shapeProblem { throw refuse(.refused, problem) }
            if change.key?.utf8.contains(0) == true { throw refuse(.unrepresentableValue, "its key contains U+0000") }
            sequences.append(Int64(change.originSequence))
            walls.append(Int64(change.stamp.wall))
            counters.append(Int32(change.stamp.counter))
            kinds.append(change.record.kind)
            ids.append(change.record.id)
            hasKey.append(change.key != nil)
            keys.append(change.key ?? "")
            self.changes.append(change.change.rawValue)
            hasValue.append(change.value != nil)
            values.append(change.value.map(HubValueText.encode) ?? "")
        }
    }

    func bindings(store: UUID) -> PostgresBindings {
        var binds = PostgresBindings()
        binds.append(store)
        binds.append(sequences)
        binds.append(walls)
        binds.append(counters)
        binds.append(kinds)
        binds.append(ids)
        binds.append(hasKey)
        binds.append(keys)
        binds.append(changes)
        binds.append(hasValue)
        binds.append(values)
        binds.append(sequences.max() ?? 0)
        return binds
    }
}
