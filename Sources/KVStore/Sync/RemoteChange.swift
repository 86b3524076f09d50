import Foundation

/// One change made in another store, as the sync hub hands it down: what
/// ``WriteTransaction/applyRemote(_:hubNow:)`` applies by the per-key last-writer-wins rule.
///
/// A change carries a whole top-level key's value (a change inside a key — a key path, an array
/// edit — travels as the key's whole value), a removal of a key, a record's insertion (its whole
/// dictionary) or its deletion, and the stamp the change was given where it was made.
///
/// ```swift
/// let change = RemoteChange(
///     origin: JournalOrigin(storeID: other, sequence: 42), stamp: HybridTime(wall: 1_795_300_800_125, counter: 0),
///     ref: try RecordRef("note/1"), key: "title", change: .set, value: "Hello")
/// try store.write { try $0.applyRemote([change]) }
/// ```
@_spi(Sync) public struct RemoteChange: Sendable, Hashable, CustomStringConvertible {
    /// What a remote change does.
    public enum Change: String, Sendable, Hashable, CaseIterable {
        /// Sets ``RemoteChange/key`` to ``RemoteChange/value`` (its whole top-level value).
        case set
        /// Removes ``RemoteChange/key`` (a tombstone).
        case remove
        /// Inserts the record with ``RemoteChange/value``, a dictionary of its keys.
        case insert
        /// Deletes the record (a tombstone for the record and every key changed before it).
        case delete
    }

    /// The store where the change was made and its sequence in that store's journal: applied,
    /// the change is journaled with this origin, and so never uploaded again.
    public var origin: JournalOrigin
    /// The hybrid logical clock time the origin gave the change; with the origin's store, its
    /// ``syncStamp``.
    public var stamp: HybridTime
    /// The record changed.
    public var ref: RecordRef
    /// The top-level key of a ``Change/set`` or ``Change/remove``; nil for a record's insertion
    /// or deletion.
    public var key: String?
    public var change: Change
    /// The key's value for a ``Change/set``, the record's dictionary for an ``Change/insert``;
    /// nil otherwise.
    public var value: Value?

    public init(origin: JournalOrigin, stamp: HybridTime, ref: RecordRef, key: String?, change: Change, value: Value?) {
        self.origin = origin
        self.stamp = stamp
        self.ref = ref
        self.key = key
        self.change = change
        self.value = value
    }

    /// The change's place in the order every store agrees on: its time and its origin's store.
    public var syncStamp: SyncStamp { SyncStamp(time: stamp, store: origin.storeID) }

    /// `set note/1 'title' (3f2a5c1e-…#42)`: the change, record, key and origin, for messages.
    public var description: String {
        "\(change.rawValue) \(ref)\(key.map { " key '\($0)'" } ?? "") (origin \(origin.storeID.lowercasedText)#\(origin.sequence))"
    }

    /// What the change does to its record's ``SyncRecordState``.
    var stateChange: SyncRecordState.Change {
        switch change {
        case .set: .key(key ?? "", isSet: true)
        case .remove: .key(key ?? "", isSet: false)
        case .insert: .inserted(keys: value?.dictionaryValue.map { Array($0.keys) } ?? [])
        case .delete: .deleted
        }
    }

    /// The value the change gives `key` of its record, when it sets it.
    func value(forKey name: String) -> Value? {
        switch change {
        case .set: name == key ? value : nil
        case .insert: value?.dictionaryValue?[name]
        case .remove, .delete: nil
        }
    }
}

/// What ``WriteTransaction/applyRemote(_:hubNow:)`` did with a batch of remote changes.
@_spi(Sync) public struct RemoteApplyReport: Sendable, Hashable {
    /// Changes that changed the store's sync state (and so, where the record differed, the record).
    public var applied = 0
    /// Changes already applied, or superseded by a change with a later stamp: nothing done.
    public var superseded = 0
    /// Changes stamped more than ``WriteTransaction/clockTolerance`` ahead of the hub's clock:
    /// applied by the rule like any other (every store must decide alike), but the store's clock
    /// did not advance to them.
    public var aheadOfClock: [RemoteChange] = []

    public init() {}
}
