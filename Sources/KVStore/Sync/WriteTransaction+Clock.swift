import Foundation

/// The store's hybrid logical clock, as a write transaction gives stamps to its journal entries.
///
/// The clock's state is the last time given: read, at the first entry of a write transaction,
/// from the journal's last entry — no write per commit, and right whatever process wrote last.
/// Where the last entry does not tell it — the journal was truncated through its last entry, or
/// that entry was applied from another store (its time is that store's, which may be behind this
/// store's clock, or far ahead and not to be adopted) — meta `sync/clock` does
/// (``StoreLayout/MetaKey/syncClock``), saved by the writes that leave the journal so.
extension WriteTransaction {
    /// The time for the next local journal entry: later than the last one given (the clock's
    /// state), at the transaction's time when that is later (a new millisecond, counter 0), else
    /// the next counter of the last one's millisecond — and later than `floor`, the latest stamp
    /// of the record changed (a kind that syncs): a local change must win over every change the
    /// record's state holds, even one from a clock so far ahead that the clock did not adopt it
    /// (else this store would hold a value every other store drops). The clock takes the time given.
    func nextStampTime(after floor: SyncStamp? = nil) throws -> HybridTime {
        let last = try clockState ?? recoveredClock(), now = try clockMilliseconds()
        var next = last.map { $0.successor(now: now) } ?? HybridTime(wall: now, counter: 0)
        if let floor, floor.time >= next { next = floor.time.successor(now: now) }
        clockState = next
        return next
    }

    /// The time of the entry being journaled: the applied entry's (``appliedStamp``), else the
    /// clock's next (``nextStampTime(after:)``). An applied entry an older kvstore wrote has no
    /// stamp, and every entry of its commit reads as one time: a later entry of the commit on the
    /// same record of a kind that syncs (a deletion then an insertion, a set then a removal) would
    /// tie with the earlier one in the record's sync state and lose, leaving the record and its
    /// state apart. In journal order the later entry wins: it takes the time after the record's
    /// latest stamp when that stamp is the same store's and not before it.
    func entryStampTime(after floor: SyncStamp?) throws -> HybridTime {
        guard let applied = appliedStamp else { return try nextStampTime(after: floor) }
        guard appliedStampIsLegacy, let floor, floor.store == origin?.storeID, floor.time >= applied else { return applied }
        return floor.time.successor(now: applied.wall)
    }

    /// Milliseconds since 1970 of the transaction's time (all its entries share one reading).
    var physicalMilliseconds: UInt64 { HybridTime.milliseconds(journalTimestamp) }

    /// The physical time the clock reads: ``physicalMilliseconds``, or — when this machine's
    /// clock was more than ``clockTolerance`` ahead of the hub's at the last sync
    /// (``ReadTransaction/clockIsClamped()``) — that plus the hub offset measured then.
    func clockMilliseconds() throws -> UInt64 {
        let offset = try clockOffset ?? clampingOffset() ?? 0
        clockOffset = offset
        return offset == 0 ? physicalMilliseconds : UInt64(max(0, Int64(physicalMilliseconds) + offset))
    }

    /// The hub's time now as the store estimates it: this machine's plus the hub offset measured
    /// at the last sync (none measured: this machine's).
    func estimatedHubMilliseconds() throws -> UInt64 {
        guard let offset = try syncCursors()?.hubOffsetMilliseconds else { return physicalMilliseconds }
        return UInt64(max(0, Int64(physicalMilliseconds) + offset))
    }

    /// The clock's state as the store's committed data tells it, before this transaction gave
    /// any time; nil when nothing was ever stamped.
    private func recoveredClock() throws -> HybridTime? {
        let last = try journalStartSequence()
        let recorded: (time: HybridTime, isLocal: Bool)? = last == 0 ? nil : try transaction.withValue(forKey: StoreLayout.sequenceKey(last), in: databases.journal) { bytes in
            guard let bytes else { return nil }
            do {
                let isLocal = try RecordCodec.value(forKey: "origin", in: bytes) == nil
                if case .int(let packed)? = try RecordCodec.value(forKey: "stamp", in: bytes) {
                    return (HybridTime(packed: UInt64(bitPattern: packed)), isLocal)
                }
                guard case .date(let timestamp)? = try RecordCodec.value(forKey: "timestamp", in: bytes) else {
                    throw StoreError(.corrupt, "journal entry \(last) is corrupt: it has no timestamp", path: store.path)
                }
                return (HybridTime(legacy: timestamp), isLocal)
            } catch let error as ValueDecodingError {
                throw StoreError(.corrupt, "journal entry \(last) is corrupt: \(error)", path: store.path)
            }
        }
        if let recorded, recorded.isLocal { return recorded.time }
        return try savedClock() ?? recorded?.time
    }

    /// Sets the clock's state from the store's committed data, or to the transaction's time when
    /// nothing was ever stamped: what ``saveClock()`` then saves, whatever the journal's last
    /// entry becomes (an entry applied from elsewhere carries that store's time).
    func startClock() throws -> HybridTime {
        let state = try clockState ?? recoveredClock() ?? HybridTime(wall: clockMilliseconds(), counter: 0)
        clockState = state
        return state
    }

    /// Advances the clock to `time`, a remote change's, when it is later than the clock's state.
    func adoptClock(_ time: HybridTime) throws {
        clockState = max(try startClock(), time)
    }

    /// Meta `sync/clock`, when saved.
    func savedClock() throws -> HybridTime? {
        try transaction.uint64(forKey: StoreLayout.MetaKey.syncClock, in: databases.meta).map(HybridTime.init(packed:))
    }

    /// Saves the clock's state in meta `sync/clock`: what the next transaction recovers when the
    /// journal's last entry does not tell it. A no-op when no time was given or recovered.
    func saveClock() throws {
        guard let state = try clockState ?? recoveredClock() else { return }
        try transaction.put(StoreLayout.MetaKey.syncClock, StoreLayout.uint64(state.packed), in: databases.meta)
    }
}
