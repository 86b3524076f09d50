import Foundation

/// How two versions of a record are merged.
public enum MergePolicy: Sendable, Hashable {
    /// Per key, the value with the later ``KeyStamp`` wins (see ``StampedRecord/merged(with:policy:)``).
    case lastWriterWins
}

/// A record's values with the modification stamp of each key: what two stores exchange to merge
/// a record key by key (``WriteTransaction/merge(_:from:policy:)``).
///
/// A stamp for a key that ``values`` does not hold is a **tombstone**: the key was removed at
/// that time, and the removal wins over older values. A key without a stamp (written before its
/// kind tracked modification times) is older than any stamped one.
///
/// ```swift
/// let remote = StampedRecord(values: ["name": "Ada Lovelace"], time: serverTime, origin: serverID, removed: ["nickname"])
/// let changes = try store.merge(ada, from: remote)
/// ```
public struct StampedRecord: Sendable, Hashable {
    /// The record's values.
    public var values: [String: Value]
    /// When and where each key last changed; a stamp for a key ``values`` lacks is a tombstone.
    public var stamps: [String: KeyStamp]

    /// A version of a record: its values and the stamps of its keys.
    public init(values: [String: Value], stamps: [String: KeyStamp]) {
        self.values = values
        self.stamps = stamps
    }

    /// Every key of `values`, and a tombstone for every key of `removed`, stamped `time` at `origin`.
    public init(values: [String: Value], time: Date, origin: UUID, removed: Set<String> = []) {
        let stamp = KeyStamp(time: time, origin: origin)
        self.init(values: values, stamps: Dictionary(uniqueKeysWithValues: Set(values.keys).union(removed).map { ($0, stamp) }))
    }

    /// The merge of two versions: for each key, the version whose stamp is later (a tombstone
    /// removes the key); equal stamps with different contents — possible only for unstamped keys —
    /// are decided by the values' encoded bytes (absent below any value). The merge is the
    /// maximum of a total order per key, so it is idempotent (`a ⊔ a = a`), commutative and
    /// associative: stores that exchange their versions in any order end up equal.
    public func merged(with other: StampedRecord, policy: MergePolicy = .lastWriterWins) -> StampedRecord {
        var result = self
        let keys = Set(other.values.keys).union(other.stamps.keys)
        for key in keys where Self.wins(other.state(of: key), over: state(of: key)) {
            result.values[key] = other.values[key]
            result.stamps[key] = other.stamps[key]
        }
        return result
    }

    typealias KeyState = (stamp: KeyStamp?, value: Value?)

    func state(of key: String) -> KeyState { (stamps[key], values[key]) }

    /// Whether `a` is later than `b` in the merge order.
    static func wins(_ a: KeyState, over b: KeyState) -> Bool {
        if a.stamp != b.stamp {
            guard let stampA = a.stamp else { return false }
            guard let stampB = b.stamp else { return true }
            return stampB < stampA
        }
        if a.value == b.value { return false }
        guard let valueA = a.value else { return false }
        guard let valueB = b.value else { return true }
        return ValueCodec.encode(valueB).lexicographicallyPrecedes(ValueCodec.encode(valueA))
    }
}
