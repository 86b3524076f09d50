import Foundation

/// The last-writer-wins state of one record of a kind that syncs, as the `sync` database keeps
/// it: the stamp of each top-level key's last change (a set, or a removal: a tombstone), and the
/// record's `created` (greatest insertion) and `deleted` (greatest deletion) stamps.
///
/// A key is present iff its last change is a set stamped after `deleted`; the record exists iff
/// `created` is after `deleted` or some key is present. Every field is a max-register (a change
/// replaces it only with a greater stamp), so applying the same changes in any order, any number
/// of times, leaves the same state — given that no two changes share a stamp, which holds for
/// journal entries (one store's stamps strictly increase, and stamps of two stores differ by id).
struct SyncRecordState: Equatable {
    /// A top-level key's last change.
    struct KeyStamp: Equatable {
        var stamp: SyncStamp
        /// False for a removal (a tombstone).
        var isSet: Bool
    }

    var created: SyncStamp?
    var deleted: SyncStamp?
    var keys: [String: KeyStamp] = [:]

    /// Whether `key` is present (its last change is a set after the record's last deletion).
    func isPresent(_ key: String) -> Bool {
        guard let state = keys[key], state.isSet else { return false }
        return deleted.map { state.stamp > $0 } ?? true
    }

    /// Whether the record exists: created after its last deletion, or some key present.
    var exists: Bool {
        if let created, deleted.map({ created > $0 }) ?? true { return true }
        return keys.keys.contains(where: isPresent)
    }

    /// The greatest stamp the record's state holds: a local change must be stamped after it to win.
    var latest: SyncStamp? {
        ([created, deleted] + keys.values.map(\.stamp)).compactMap { $0 }.max()
    }

    /// The change a journal entry makes to the state, stamped `stamp`.
    enum Change {
        /// A top-level key set (its value, or a value inside it) or removed.
        case key(String, isSet: Bool)
        /// The record inserted with these keys.
        case inserted(keys: [String])
        case deleted
    }

    /// Applies `change` stamped `stamp`: each register it touches takes `stamp` when greater. A
    /// deletion drops the keys' stamps it makes dead (at or before it: those keys are absent
    /// whatever older change still comes).
    /// - Returns: whether the state changed.
    @discardableResult
    mutating func apply(_ change: Change, stamp: SyncStamp) -> Bool {
        func raiseKey(_ key: String, isSet: Bool) -> Bool {
            if let current = keys[key], current.stamp >= stamp { return false }
            if let deleted, stamp <= deleted { return false }  // dead on arrival: absent either way
            keys[key] = KeyStamp(stamp: stamp, isSet: isSet)
            return true
        }
        switch change {
        case .key(let key, let isSet):
            return raiseKey(key, isSet: isSet)
        case .inserted(let inserted):
            var changed = false
            if created.map({ stamp > $0 }) ?? true { created = stamp; changed = true }
            for key in inserted where raiseKey(key, isSet: true) { changed = true }
            return changed
        case .deleted:
            guard deleted.map({ stamp > $0 }) ?? true else { return false }
            deleted = stamp
            keys = keys.filter { $0.value.stamp > stamp }
            return true
        }
    }
}
