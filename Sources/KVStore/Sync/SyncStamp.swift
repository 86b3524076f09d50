import Foundation

/// A change's place in the order every syncing store agrees on: a hybrid logical clock time
/// (``HybridTime``: wall milliseconds, counter) and the store that made the change.
///
/// Stamps order by wall, then counter, then the store id's bytes, so changes of two stores at the
/// same instant still have one order, the same on every store; one store's stamps of one record
/// increase change by change and never tie. Per key, the change with the greatest stamp wins (last writer wins).
///
/// ```swift
/// let stamp = try store.read { try $0.journalEntries(from: 7, limit: 1)[0] }.syncStamp(localStore: store.id)
/// stamp.description   // "2026-11-21T22:40:00.125Z#3@3f2a5c1e-…"
/// ```
public struct SyncStamp: Sendable, Hashable, Comparable, CustomStringConvertible, LosslessStringConvertible {
    /// The hybrid logical clock time.
    public var time: HybridTime
    /// The store where the change was made.
    public var store: UUID

    /// The stamp of a change made at `time` in store `store`.
    public init(time: HybridTime, store: UUID) {
        self.time = time
        self.store = store
    }

    /// Milliseconds since 1970 (``HybridTime/wall``).
    public var wall: UInt64 { time.wall }
    /// The counter within the millisecond (``HybridTime/counter``).
    public var counter: UInt16 { time.counter }

    /// Wall, then counter, then the store id's bytes.
    public static func < (lhs: SyncStamp, rhs: SyncStamp) -> Bool {
        if lhs.time != rhs.time { return lhs.time < rhs.time }
        return lhs.store.bytesPrecede(rhs.store)
    }

    /// `2026-11-21T22:40:00.125Z#3@3f2a5c1e-…`: the time (``HybridTime/description``), `@`, the
    /// store id in lowercase.
    public var description: String { time.description + "@" + store.lowercasedText }

    /// Reads ``description``'s form back; nil for any other text.
    public init?(_ description: String) {
        guard let at = description.lastIndex(of: "@"), let time = HybridTime(String(description[..<at])),
              let store = UUID(uuidString: String(description[description.index(after: at)...])) else { return nil }
        self.init(time: time, store: store)
    }
}

extension JournalEntry {
    /// The entry's stamp in the sync order: its ``stamp`` (an entry written before stamps: its
    /// timestamp in whole milliseconds, counter 0), and the store where the change was made — the
    /// origin's for an entry applied from elsewhere, else `localStore`, the id of the store whose
    /// journal holds the entry. Entries of one commit written before stamps tie; their journal
    /// sequence orders them.
    public func syncStamp(localStore: UUID) -> SyncStamp {
        SyncStamp(time: stamp ?? HybridTime(legacy: timestamp), store: origin?.storeID ?? localStore)
    }
}
