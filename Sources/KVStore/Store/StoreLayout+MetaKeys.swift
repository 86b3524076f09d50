import Foundation

extension StoreLayout {
    /// Every key of the `meta` database, and what its value holds: with ``StoreLayout`` (the
    /// named databases and the keys of `records` and `journal`), the store's on-disk format.
    ///
    /// Keys are UTF-8 text; a key ending in `/` is a prefix, followed by a name, a source store's
    /// id (a UUID in lowercase text) or a record's key. Numbers are little-endian: `UInt64 LE` is
    /// 8 bytes (``StoreLayout/uint64(_:)``), and a time is a `Float64` of seconds since 1970
    /// stored as the `UInt64 LE` of its bit pattern. A key that is absent reads as noted.
    enum MetaKey {
        // MARK: The store

        /// `format`: the format version the store was written in, `UInt32 LE`: written at creation
        /// (``StoreLayout/formatVersion``, 1), raised to ``StoreLayout/catalogFormatVersion`` (2) by
        /// the first kind declaration stored in the catalog, to
        /// ``StoreLayout/indexStatisticsFormatVersion`` (3) by the first index built with counts of
        /// its irregular entries, and to ``StoreLayout/syncFormatVersion`` (4) by the first sync
        /// configuration (`sync/config`); a store whose format is newer than
        /// ``StoreLayout/newestFormatVersion`` is refused.
        static let format = Array("format".utf8)

        /// `store-id`: the store's id, the 16 bytes of its UUID. Written at creation; a replica
        /// seeded from a snapshot takes an id of its own.
        static let storeID = Array("store-id".utf8)

        /// `created`: when the store was created (a seeded replica: when it was seeded), a time.
        static let created = Array("created".utf8)

        // MARK: The journal and the records

        /// `last-sequence`: the sequence of the newest journal entry ever written, `UInt64 LE`
        /// (absent: 0). Truncating the journal leaves it.
        static let lastSequence = Array("last-sequence".utf8)

        /// `last-commit`: the commit id of the last commit that journaled anything, `UInt64 LE`
        /// (absent: 0); the next such commit takes the one after.
        static let lastCommit = Array("last-commit".utf8)

        /// `count/<kind>`: the number of records of that kind, `UInt64 LE`; removed when it
        /// drops to 0. Saved once per commit.
        static let countPrefix = Array("count/".utf8)
        static func count(_ kind: String) -> [UInt8] { countPrefix + Array(kind.utf8) }

        /// `consumer/<name>`: a durable journal consumer (``JournalConsumer``), its cursor as
        /// `UInt64 LE`: the last journal sequence it has processed.
        static let consumerPrefix = Array("consumer/".utf8)
        static func consumer(_ name: String) -> [UInt8] { consumerPrefix + Array(name.utf8) }

        // MARK: Replication

        /// `replica/<source store id>`: the replication checkpoint of that source, the last of its
        /// sequences applied here, `UInt64 LE` (absent: 0). Written in the same transaction as the
        /// changes it accounts for, so applying is exactly-once.
        static let checkpointPrefix = Array("replica/".utf8)
        static func checkpoint(_ source: UUID) -> [UInt8] { checkpointPrefix + Array(source.lowercasedText.utf8) }

        /// `source-last/<source store id>`: that source's last sequence when last heard of,
        /// `UInt64 LE`; written in the same transaction as its checkpoint, never below it.
        static let sourceLastPrefix = Array("source-last/".utf8)
        static func sourceLast(_ source: UUID) -> [UInt8] { sourceLastPrefix + Array(source.lowercasedText.utf8) }

        /// `replica-of`: the store id (lowercase UUID text) of the source this store is a replica
        /// of, written with the first batch applied from it or when seeded from its snapshot
        /// (absent: a primary store). See ``ReplicationRole``.
        static let replicaOf = Array("replica-of".utf8)

        /// `promoted`: when the replica was promoted, a time (absent: not promoted). A promoted
        /// store takes local writes again; `replica-of` stays, as history.
        static let promoted = Array("promoted".utf8)

        // MARK: The kind catalog

        /// `catalog/<kind>`: the kind's declaration in the store's catalog (``KindDeclaration``):
        /// one format byte (1; a newer one is refused with ``StoreError/Code/newerFormat``), then a
        /// ``RecordCodec`` dictionary — `keys` (a closed kind's keys, each to its type's name or
        /// `null` for any type; absent for an open kind), `indexes` (an array of
        /// `{keyPaths: [text], unique: bool, folded: bool}`), `tracksModificationTimes` (true) and
        /// `schemaVersion` (an int), each absent when it is the default. Absent: the kind is open,
        /// with none of these. Written with the catalog's `kindDeclared` journal entry, in the same
        /// transaction; a value that does not decode is ``StoreError/Code/corrupt``, naming the kind.
        /// `catalog/kvstore.migrations` is no kind's: format 2, it holds only `migrations`, the
        /// names of the migrations applied to the store in the order they ran (``MigrationLog``).
        static let catalogPrefix = Array("catalog/".utf8)
        static func catalog(_ kind: String) -> [UInt8] { catalogPrefix + Array(kind.utf8) }

        /// `catalog-version`: 16 random bytes, replaced whenever a `catalog/` entry changes (absent:
        /// the catalog is empty). Processes keep the decoded catalog keyed by it and read only these
        /// bytes per transaction. Random rather than a counter: a write that aborts (or a group
        /// commit that fails) may have used a counter value that a later commit reuses for another
        /// catalog; a random value never names two catalogs.
        static let catalogVersion = Array("catalog-version".utf8)

        // MARK: Modification times

        /// `stamps/<record key>` (the record's key in `records`: `kind` 0x00 `id`): when each key
        /// of a record of a kind that tracks them (``Kind/tracksModificationTimes``) last changed,
        /// and where: a ``RecordCodec`` dictionary from each key to `[date, origin]`, the origin
        /// store's id as lowercase UUID text (see `StampCodec`). A key the record does not hold is
        /// a tombstone. Written in the same transaction as the change, removed with the record;
        /// stores without any open as before.
        static let stampsPrefix = Array("stamps/".utf8)
        static func stamps(_ ref: RecordRef) -> [UInt8] { stampsPrefix + StoreLayout.recordKey(ref) }

        // MARK: Sync

        /// `sync/config`: which kinds the store syncs (``SyncConfiguration``): one format byte (1;
        /// a newer one is refused with ``StoreError/Code/newerFormat``), then a ``RecordCodec``
        /// dictionary — `kinds`, the names of the kinds that sync (absent: every kind). Absent:
        /// the store does not sync, and keeps no sync state. Read with the kind catalog: writing
        /// it replaces `catalog-version`; the first one raises the store's format to
        /// ``StoreLayout/syncFormatVersion`` (4). The `sync` database holds the synced records'
        /// state (``SyncStateStorage``).
        static let syncConfig = Array("sync/config".utf8)

        /// `sync/clock`: the store's hybrid logical clock state (the last ``HybridTime`` it gave),
        /// `UInt64 LE` of ``HybridTime/packed``, then the journal's last sequence when it was saved,
        /// `UInt64 LE`. Read only when that sequence is still the journal's last: else the last
        /// entry's stamp is the clock's state. Saved by a transaction whose last entry's stamp is
        /// not the clock's (a record's change pushed ahead of the clock, an entry from another
        /// store), that moved the clock without an entry, or that truncates the last entry.
        static let syncClock = Array("sync/clock".utf8)

        /// `sync/cursors`: where the store's sync with its hub stands (``SyncCursors``): one
        /// format byte (1; a newer one is refused), then a ``RecordCodec`` dictionary — `hub`
        /// (the hub's identity, text), `uploadedThrough` (the last sequence the hub committed),
        /// `download` (bytes, opaque to the store) and `hubOffset` (the hub's clock minus this
        /// machine's, ms; absent until measured). Absent: never synced.
        static let syncCursors = Array("sync/cursors".utf8)

        /// `sync/start`: the journal's last sequence when the store started syncing, `UInt64 LE`
        /// (``ReadTransaction/syncUploadStart()``): no entry up to it has anything to upload, so
        /// the upload starts after it, and a journal truncated before it never blocks a sync.
        /// Removed when the store stops syncing.
        static let syncStart = Array("sync/start".utf8)
    }
}
