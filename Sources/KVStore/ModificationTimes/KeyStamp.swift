import Foundation

/// When a key of a record last changed, and in which store: the order of last-writer-wins.
///
/// Stamps order by time, then by origin (the store id's bytes), so two stores that changed a key
/// at the same instant still agree on which change is the later one. Times compare by their bits
/// in IEEE 754 total order, as ``Value`` compares doubles: the order is total even for a time that
/// is not a number, so merges stay commutative whatever they are given.
///
/// ```swift
/// let stamp = KeyStamp(time: Date(), origin: store.id)
/// ```
public struct KeyStamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// When the change was made (for a replicated change: when it was made at its source).
    public var time: Date
    /// The store where the change was made.
    public var origin: UUID

    /// A stamp for a change made at `time` in the store `origin`.
    public init(time: Date, origin: UUID) {
        self.time = time
        self.origin = origin
    }

    private var seconds: Double { time.timeIntervalSinceReferenceDate }

    /// Whether two stamps have the same time (by its bits) and origin.
    public static func == (lhs: KeyStamp, rhs: KeyStamp) -> Bool {
        lhs.seconds.bitPattern == rhs.seconds.bitPattern && lhs.origin == rhs.origin
    }

    /// Hashes what ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(seconds.bitPattern)
        hasher.combine(origin)
    }

    /// Last-writer-wins order: by time in IEEE 754 total order, then by the origin's bytes.
    public static func < (lhs: KeyStamp, rhs: KeyStamp) -> Bool {
        if lhs.seconds.bitPattern != rhs.seconds.bitPattern { return lhs.seconds.isTotallyOrdered(belowOrEqualTo: rhs.seconds) }
        return lhs.origin.bytesPrecede(rhs.origin)
    }

    /// `2026-11-21T22:40:00.125Z 3f2a…`: the time as typed JSON writes it, and the origin.
    public var description: String {
        "\(TypedJSONDate.text(of: time)) \(origin.uuidString.lowercased())"
    }
}
