/// What the sync engine (KVStoreSync) reads of a store's sync setup.
extension ReadTransaction {
    /// The kinds the store syncs (meta `sync/config`); nil when it does not sync.
    package func syncConfiguration() throws -> SyncConfiguration? {
        try kindCatalog().sync
    }
}
