import Foundation

/// The time part of a ``SyncStamp``: milliseconds since 1970 and a counter that orders the
/// stamps a store gives within one millisecond — a hybrid logical clock's reading.
///
/// A journal entry keeps it as one int, ``packed`` (`wall << 16 | counter`), under `stamp`
/// (``JournalEntry/stamp``). Times order by wall, then counter, which is the order of ``packed``.
///
/// ```swift
/// let time = HybridTime(wall: 1_795_300_800_125, counter: 3)
/// time.description            // "2026-11-21T22:40:00.125Z#3"
/// HybridTime(packed: time.packed) == time   // true
/// ```
public struct HybridTime: Sendable, Hashable, Comparable, CustomStringConvertible, LosslessStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00Z; at most ``maxWall`` (48 bits).
    public let wall: UInt64
    /// Orders the times given within one millisecond.
    public let counter: UInt16

    /// The largest wall time a stamp holds: 2^48 − 1 ms, in the year 10889.
    public static let maxWall: UInt64 = (1 << 48) - 1

    /// The time `wall` ms since 1970, `counter`; a wall past ``maxWall`` is clamped to it.
    public init(wall: UInt64, counter: UInt16) {
        self.wall = min(wall, Self.maxWall)
        self.counter = counter
    }

    /// The time a journal entry stores: `wall << 16 | counter`.
    public init(packed: UInt64) {
        self.init(wall: packed >> 16, counter: UInt16(truncatingIfNeeded: packed))
    }

    /// `wall << 16 | counter`, as a journal entry stores it; orders as the times do.
    public var packed: UInt64 { wall << 16 | UInt64(counter) }

    /// The time of an entry written before entries carried stamps: its timestamp in whole
    /// milliseconds (before 1970, or not a number: 0), counter 0.
    public init(legacy timestamp: Date) {
        self.init(wall: Self.milliseconds(timestamp), counter: 0)
    }

    /// Whole milliseconds since 1970 of `date`, clamped to `0 ... maxWall`.
    static func milliseconds(_ date: Date) -> UInt64 {
        let ms = (date.timeIntervalSince1970 * 1000).rounded(.down)
        guard ms > 0 else { return 0 }
        return ms >= Double(maxWall) ? maxWall : UInt64(ms)
    }

    /// The time after this one at physical time `now` (ms since 1970): `now` when it is later
    /// than ``wall``, else the next counter of ``wall`` (after the last counter: the next
    /// millisecond, counter 0). Always later than `self`, except at the very last time (``maxWall``,
    /// counter 65535), which only a damaged stamp reaches: the clock stays there.
    func successor(now: UInt64) -> HybridTime {
        if now > wall { return HybridTime(wall: now, counter: 0) }
        if counter < .max { return HybridTime(wall: wall, counter: counter + 1) }
        return wall < Self.maxWall ? HybridTime(wall: wall + 1, counter: 0) : self
    }

    public static func < (lhs: HybridTime, rhs: HybridTime) -> Bool { lhs.packed < rhs.packed }

    /// `1795300800125.3`: the wall time in ms, `.`, the counter — how JSON output prints a time,
    /// as text: ``packed`` passes 2^53, past what a JSON reader's double keeps exactly.
    public var jsonText: String { "\(wall).\(counter)" }

    /// Reads ``jsonText``'s form back; nil for any other text.
    public init?(jsonText text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { ("0" ... "9").contains($0) } }),
              let wall = UInt64(parts[0]), wall <= Self.maxWall, let counter = UInt16(parts[1]) else { return nil }
        self.init(wall: wall, counter: counter)
    }

    /// `2026-11-21T22:40:00.125Z#3`: the wall time in ISO 8601 (UTC, milliseconds), `#`, the counter.
    public var description: String {
        let date = Date(timeIntervalSince1970: Double(wall / 1000))
        var text = TypedJSONDate.text(of: date)
        text.removeLast()  // the "Z"
        let ms = String(wall % 1000)
        return text + "." + String(repeating: "0", count: 3 - ms.count) + ms + "Z#" + String(counter)
    }

    /// Reads ``description``'s form back; nil for any other text.
    public init?(_ description: String) {
        func number<T: FixedWidthInteger>(_ digits: Substring, _: T.Type) -> T? {
            digits.allSatisfy { ("0" ... "9").contains($0) } ? T(digits) : nil
        }
        guard let hash = description.lastIndex(of: "#"),
              let counter = number(description[description.index(after: hash)...], UInt16.self),
              description[..<hash].hasSuffix("Z") else { return nil }
        let time = description[..<description.index(before: hash)]
        guard let dot = time.lastIndex(of: "."), time.distance(from: dot, to: time.endIndex) == 4,
              let ms = number(time[time.index(after: dot)...], UInt64.self),
              let date = TypedJSONDate.date(from: String(time[..<dot]) + "Z") else { return nil }
        let seconds = date.timeIntervalSince1970
        guard seconds >= 0, seconds == seconds.rounded(), seconds <= Double(Self.maxWall / 1000),
              UInt64(seconds) * 1000 + ms <= Self.maxWall else { return nil }
        self.init(wall: UInt64(seconds) * 1000 + ms, counter: counter)
    }
}
