import Foundation

/// The store's hybrid logical clock, as a write transaction gives stamps to its journal entries.
///
/// The clock's state is the last time it gave, recovered at the first entry of a write
/// transaction: meta `sync/clock` (``StoreLayout/MetaKey/syncClock``) when it was saved with the
/// journal's last sequence, else the journal's last entry's stamp — no write per commit in the
/// usual case, and right whatever process wrote last. A transaction saves `sync/clock` when its
/// last entry's stamp is not the clock's state: a change of a record pushed ahead of the clock
/// (``nextStampTime(after:)``), an entry applied from another store, a remote time adopted
/// without an entry, or the journal truncated through its last entry.
extension WriteTransaction {
    /// The time for the next local journal entry: later than the last one given (the clock's
    /// state), at the transaction's time when that is later (a new millisecond, counter 0), else
    /// the next counter of the last one's millisecond. When `floor` (the latest stamp of the
    /// record changed, a kind that syncs) is not before that, the entry is stamped just after
    /// `floor` instead — a local change must win over every change the record's state holds,
    /// even one from a clock so far ahead that the clock did not adopt it — but the clock does
    /// not move there: other records' changes keep this machine's time. A clock clamped to the
    /// hub's time (``clockMilliseconds()``) does not go on from a state more than
    /// ``clockTolerance`` ahead of it — the stamps this store gave before it learned the hub's
    /// time keep their times, but are no more adopted than another store's that far ahead.
    func nextStampTime(after floor: SyncStamp? = nil) throws -> HybridTime {
        let now = try clockMilliseconds()
        var last = try clockState ?? recoveredClock()
        if clockOffset != 0, let state = last, state.wall > now + Self.clockTolerance { last = nil }
        let next = last.map { $0.successor(now: now) } ?? HybridTime(wall: now, counter: 0)
        clockState = next
        guard let floor, floor.time >= next else { return next }
        return floor.time.successor(now: now)
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
    /// any time: meta `sync/clock` when saved at the journal's last sequence, else the stamp of
    /// the journal's last entry; nil when nothing tells it.
    func recoveredClock() throws -> HybridTime? {
        let last = try journalStartSequence()
        let catalog = try kindCatalog()
        if !catalog.hasSyncConfiguration, let cached = store.clocks.time(at: last, catalog: catalog) { return cached }
        if let saved = try savedClock(), saved.sequence == last { return saved.time }
        guard last > 0 else { return nil }
        return try transaction.withValue(forKey: StoreLayout.sequenceKey(last), in: databases.journal) { bytes in
            guard let bytes else { return nil }
            do {
                if case .int(let packed)? = try RecordCodec.value(forKey: "stamp", in: bytes) {
                    return HybridTime(packed: UInt64(bitPattern: packed))
                }
                guard case .date(let timestamp)? = try RecordCodec.value(forKey: "timestamp", in: bytes) else {
                    throw StoreError(.corrupt, "journal entry \(last) is corrupt: it has no timestamp", path: store.path)
                }
                return HybridTime(legacy: timestamp)
            } catch let error as ValueDecodingError {
                throw StoreError(.corrupt, "journal entry \(last) is corrupt: \(error)", path: store.path)
            }
        }
    }

    /// Sets the clock's state from the store's committed data, or to the clock's time when
    /// nothing was ever stamped.
    func startClock() throws -> HybridTime {
        let state = try clockState ?? recoveredClock() ?? HybridTime(wall: clockMilliseconds(), counter: 0)
        clockState = state
        return state
    }

    /// Advances the clock to `time`, a remote change's, when it is later than the clock's state.
    func adoptClock(_ time: HybridTime) throws {
        clockState = max(try startClock(), time)
    }

    /// Meta `sync/clock`, when saved: the clock's state and the journal's last sequence then.
    func savedClock() throws -> (time: HybridTime, sequence: UInt64)? {
        try transaction.withValue(forKey: StoreLayout.MetaKey.syncClock, in: databases.meta) { bytes in
            guard let bytes else { return nil }
            guard bytes.count == 16 else { throw StoreError(.corrupt, "the sync clock in meta is corrupt: \(bytes.count) bytes, not 16", path: store.path) }
            return (HybridTime(packed: bytes.loadUnaligned(as: UInt64.self).littleEndian), bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self).littleEndian)
        }
    }

    /// Saves the clock's state with the journal's last sequence in meta `sync/clock`: what the
    /// next transaction recovers. A no-op when no time was given or recovered.
    func saveClock() throws {
        guard let state = try clockState ?? recoveredClock() else { return }
        try transaction.put(StoreLayout.MetaKey.syncClock, StoreLayout.uint64(state.packed) + StoreLayout.uint64(journalLastSequence()), in: databases.meta)
    }

    /// What ``ClockCache`` keeps once this transaction commits: the clock's state and the
    /// journal's last sequence, when the clock was read and the store does not sync.
    func clockCacheEntry() throws -> ClockCache.Entry? {
        guard let clockState else { return nil }
        let catalog = try kindCatalog()
        guard !catalog.hasSyncConfiguration else { return nil }
        return ClockCache.Entry(sequence: try journalLastSequence(), time: clockState, catalog: catalog)
    }

    /// Saves the clock (``saveClock()``) at the end of a transaction that moved it where the
    /// journal's last entry does not tell it: that entry's stamp is not the clock's state, or
    /// the clock moved without an entry.
    func saveClockIfMoved() throws {
        guard let state = clockState else { return }
        if let lastJournaledStamp {
            if lastJournaledStamp == state { return }
        } else if try state == recoveredClock() {
            return
        }
        try saveClock()
    }
}
