import Foundation

/// What kind of change a journal entry records.
///
/// `setting`, `insertion`, `removal` and `replacement` are KVO's change kinds for one key
/// (the last three for index-level changes of an array); a record's insertion and deletion are
/// journaled once for the whole record. `kindDeclared` changes no record: it records a change of
/// the store's kind catalog (see <doc:KindCatalog>).
public enum ChangeKind: String, Sendable, CaseIterable {
    /// The key's value was set, or removed (new value nil).
    case setting
    /// Elements were inserted into the array at the key, at ``JournalEntry/indexes``.
    case insertion
    /// Elements were removed from the array at the key, at ``JournalEntry/indexes``.
    case removal
    /// Elements of the array at the key were replaced, at ``JournalEntry/indexes``.
    case replacement
    /// A record was inserted; the new value is its whole dictionary.
    case recordInserted
    /// A record was deleted; the old value is its whole dictionary.
    case recordDeleted
    /// A kind's declaration in the store's catalog changed (``WriteTransaction/declare(_:)``,
    /// ``Store/register(_:)``). The entry's ``JournalEntry/ref`` is `KIND/*` — it names the kind,
    /// not a record — and its old and new values are the declarations before and after, as
    /// dictionaries (`{"format":1,"keys":{"name":"string","age":null},"schemaVersion":2,…}`;
    /// nil: none, an open kind with no indexes). Observers of records and kinds are not told
    /// of it; replication and replay apply it, so replicas and replays keep the same catalog.
    case kindDeclared
}

/// Where a replicated entry came from: the source store and the entry's sequence there.
public struct JournalOrigin: Sendable, Hashable {
    /// The id of the store where the change was first made.
    public var storeID: UUID
    /// The change's sequence in that store's journal.
    public var sequence: UInt64

    /// The origin of the entry with `sequence` in the journal of store `storeID`.
    public init(storeID: UUID, sequence: UInt64) {
        self.storeID = storeID
        self.sequence = sequence
    }
}

/// One change, as the journal keeps it: appended by did-change in the same LMDB transaction as the
/// data it describes.
///
/// Entries carry old and new values, so they can be inverted (undo) and replayed without the
/// source store. For ``ChangeKind/insertion``, ``ChangeKind/removal`` and ``ChangeKind/replacement``
/// the values are arrays of the elements at ``indexes`` (old: the elements removed or replaced;
/// new: the elements inserted or put in their place).
public struct JournalEntry: Sendable, Hashable {
    /// Position in the journal: 1, 2, 3, … without gaps, never reused.
    public var sequence: UInt64
    /// The commit that made the change; every entry of one write transaction shares it.
    public var commitID: UInt64
    /// When the commit was made (all entries of a commit share it).
    public var timestamp: Date
    /// The hybrid logical clock time of the change (see ``SyncStamp``): given by the store's
    /// clock for a local change (a rebuild's entries too), strictly later than the store's local
    /// entries of the same record before (a record of a kind that syncs: than its latest stamp,
    /// whichever store's); for an entry applied from another store (it has an ``origin``), the source
    /// entry's, unchanged. Nil for an entry
    /// written before entries carried stamps (``syncStamp(localStore:)`` reads it then).
    public var stamp: HybridTime?
    /// For entries applied by replication: where they came from. Nil for local changes.
    public var origin: JournalOrigin?
    /// The record changed; for ``ChangeKind/kindDeclared``, `KIND/*`: the kind whose declaration changed.
    public var ref: RecordRef
    /// The key path changed; nil for ``ChangeKind/recordInserted``, ``ChangeKind/recordDeleted``
    /// and ``ChangeKind/kindDeclared``.
    public var keyPath: String?
    /// What kind of change this is.
    public var change: ChangeKind
    /// The value before the change; nil when there was none.
    public var oldValue: Value?
    /// The value after the change; nil when there is none (a removed key, a deleted record).
    public var newValue: Value? {
        get { newStorage.value }
        set { newStorage = .decoded(newValue) }
    }
    /// The new value as read: decoded, or — for a record insertion that replication reads and
    /// writes as it is — the record's encoding, decoded only when ``newValue`` is asked for.
    var newStorage: NewValue
    /// For index-level changes, the indexes (ascending) in the array at ``keyPath``.
    public var indexes: [Int]?
    /// True for a change an app announced by hand for a derived key (its value is computed,
    /// not stored): replaying skips such entries.
    public var isDerived: Bool

    /// An entry with these fields; the store makes its own as it journals changes (this is for
    /// tools and tests that build entries, such as a journal stream written by hand).
    public init(
        sequence: UInt64, commitID: UInt64, timestamp: Date, stamp: HybridTime? = nil, origin: JournalOrigin? = nil,
        ref: RecordRef, keyPath: String?, change: ChangeKind,
        oldValue: Value?, newValue: Value?, indexes: [Int]? = nil, isDerived: Bool = false
    ) {
        self.sequence = sequence
        self.commitID = commitID
        self.timestamp = timestamp
        self.stamp = stamp
        self.origin = origin
        self.ref = ref
        self.keyPath = keyPath
        self.change = change
        self.oldValue = oldValue
        self.newStorage = .decoded(newValue)
        self.indexes = indexes
        self.isDerived = isDerived
    }
}
