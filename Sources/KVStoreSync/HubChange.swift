import Foundation
import KVStore

/// One journal change as the hub holds it: a row of its `changes` table.
///
/// Which fields a change has depends on ``change``:
///
/// | change    | key       | value                         |
/// |-----------|-----------|-------------------------------|
/// | `set`     | required  | required: the key's new value |
/// | `remove`  | required  | none                          |
/// | `insert`  | none      | optional (the record's value) |
/// | `delete`  | none      | none                          |
///
/// The value is stored as typed JSON (KVStore's `TypedJSON`) in a `jsonb` column, so the hub can be
/// queried in SQL (`value->>'city'`). `jsonb` cannot hold every value exactly: a string or key
/// containing U+0000, a double at or above 1e16 in magnitude (written with an exponent, which
/// `jsonb` turns into an integer), `-0.0`, and a date written as a number of seconds. Such a value
/// travels as `{"$kv": "<base64>"}`, kvstore's own encoding of it: exact, but opaque to SQL on
/// the hub. Only a change whose key contains U+0000 (a `text` column cannot hold it) is refused,
/// with ``SyncError/Code/unrepresentableValue``.
public struct HubChange: Sendable, Equatable {
    /// What a change does.
    public enum Change: String, Sendable, CaseIterable {
        /// Sets a top-level key of a record to a value.
        case set
        /// Removes a top-level key of a record.
        case remove
        /// Creates a record.
        case insert
        /// Deletes a record.
        case delete
    }

    /// The store that made the change.
    public var origin: UUID
    /// The change's sequence number in its origin's journal (unique per origin).
    public var originSequence: UInt64
    /// When the change was made, on its origin's hybrid logical clock.
    public var stamp: HubStamp
    /// The record changed.
    public var record: RecordRef
    /// The top-level key changed (nil for record-level changes).
    public var key: String?
    /// What the change does.
    public var change: Change
    /// The key's or record's new value.
    public var value: Value?

    /// A change; see the table above for which of `key` and `value` each kind of change has.
    public init(origin: UUID, originSequence: UInt64, stamp: HubStamp, record: RecordRef, key: String?,
                change: Change, value: Value?) {
        self.origin = origin
        self.originSequence = originSequence
        self.stamp = stamp
        self.record = record
        self.key = key
        self.change = change
        self.value = value
    }

    /// What is wrong with the change's shape (a key or value where none belongs, or missing),
    /// or nil.
    var shapeProblem: String? {
        switch change {
        case .set where key == nil, .remove where key == nil:
            return "a change '\(change.rawValue)' needs a key"
        case .insert where key != nil, .delete where key != nil:
            return "a change '\(change.rawValue)' takes no key"
        case .set where value == nil:
            return "a change 'set' needs a value"
        case .insert where value != nil && value?.dictionaryValue == nil:
            return "a change 'insert' takes the record (a dictionary) as its value"
        case .remove where value != nil, .delete where value != nil:
            return "a change '\(change.rawValue)' takes no value"
        default:
            return nil
        }
    }
}

/// A hybrid logical clock stamp without its store: milliseconds since 1970 (48 bits) and a
/// counter that orders stamps within one millisecond.
public struct HubStamp: Sendable, Hashable, Comparable {
    /// Milliseconds since 1970-01-01 UTC, below 2^48.
    public var wall: UInt64
    /// Orders stamps with the same ``wall``.
    public var counter: UInt16

    /// The largest ``wall`` a stamp may have (2^48 - 1).
    public static let maxWall: UInt64 = (1 << 48) - 1

    /// A stamp (`wall` must be at most ``maxWall``: uploading a larger one is refused).
    public init(wall: UInt64, counter: UInt16) {
        self.wall = wall
        self.counter = counter
    }

    /// By wall, then counter.
    public static func < (lhs: HubStamp, rhs: HubStamp) -> Bool { (lhs.wall, lhs.counter) < (rhs.wall, rhs.counter) }
}
