/// What the sync client checks before trusting its upload cursor: a store restored from a backup,
/// or a copy of a store, has the same id and reuses journal sequences for other changes, so the
/// hub's `(origin, origin_seq)` alone cannot tell them apart.
extension ReadTransaction {
    /// The stamp of this store's own journal entry at `sequence`; nil when the journal does not
    /// hold one there (past the last sequence, truncated, or an entry applied from another store).
    ///
    /// The hub keeps each uploaded entry's stamp: when it holds this store's entry `sequence`
    /// with another stamp — or `uploaded_through` is past ``lastSequence()`` — the store was
    /// restored or copied, and syncing it would drop its new changes (`ON CONFLICT DO NOTHING`).
    /// Equal stamps after the local upload cursor are an upload whose acknowledgement was lost.
    /// (An entry written before stamps reads as its timestamp, ``HybridTime/init(legacy:)``.)
    package func localStamp(atSequence sequence: UInt64) throws -> HybridTime? {
        guard sequence > 0, let entry = try journalEntries(from: sequence, limit: 1).first,
              entry.sequence == sequence, entry.origin == nil else { return nil }
        return entry.syncStamp(localStore: store.id).time
    }
}
