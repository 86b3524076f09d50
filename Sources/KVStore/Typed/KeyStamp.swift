import Foundation

/// When a key of a record last changed, and in which store: the order of last-writer-wins.
///
/// Stamps order by time, then by origin (the store id's bytes), so two stores that changed a key
/// at the same instant still agree on which change is the later one.
///
/// ```swift
/// let stamp = KeyStamp(time: Date(), origin: store.id)
/// ```
public struct KeyStamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// When the change was made (for a replicated change: when it was made at its source).
    public var time: Date
    /// The store where the change was made.
    public var origin: UUID

    public init(time: Date, origin: UUID) {
        self.time = time
        self.origin = origin
    }

    public static func < (lhs: KeyStamp, rhs: KeyStamp) -> Bool {
        if lhs.time != rhs.time { return lhs.time < rhs.time }
        return withUnsafeBytes(of: lhs.origin.uuid) { l in
            withUnsafeBytes(of: rhs.origin.uuid) { r in l.lexicographicallyPrecedes(r) }
        }
    }

    public var description: String {
        "\(time.ISO8601Format(.iso8601.time(includingFractionalSeconds: true).year().month().day())) \(origin.uuidString.lowercased())"
    }
}
