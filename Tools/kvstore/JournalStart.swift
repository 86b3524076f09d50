import KVStore

/// Where `journal list` and `journal export` start: `--since SEQ`, which must still be in the
/// journal. A journal truncated past it would make the listing or the stream silently start
/// later, at its first entry, with status 0: that is an error naming the first sequence held.
enum JournalStart {
    /// Refuses `since` (nil: not given, start at the first entry held) when the journal of
    /// `store` was truncated past it.
    static func check(since: UInt64?, in store: Store) throws {
        guard let since else { return }
        let oldest = try store.read { try $0.oldestCoveredCursor() }
        guard max(since, 1) <= oldest else { return }
        throw CommandError("--since \(since): the journal was truncated past it; the first entry it holds is \(oldest + 1) (entries \(max(since, 1))…\(oldest) are gone)")
    }
}
