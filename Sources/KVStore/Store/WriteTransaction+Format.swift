import Foundation

extension WriteTransaction {
    /// Raises the store's format version (`format` in meta) to `version` when it is below, so that
    /// an older kvstore, which does not read what this write adds, refuses the store.
    func raiseFormat(to version: UInt32) throws {
        let meta = databases.meta
        let format = try transaction.withValue(forKey: StoreLayout.MetaKey.format, in: meta, StoreLayout.uint32(from:)) ?? 0
        if format < version {
            try transaction.put(StoreLayout.MetaKey.format, withUnsafeBytes(of: version.littleEndian, Array.init), in: meta)
        }
    }

    /// Replaces meta `catalog-version` after a change of what ``KindCatalog`` reads, so that every
    /// process reads it again; this transaction too.
    func replaceCatalogVersion() throws {
        try transaction.put(StoreLayout.MetaKey.catalogVersion, withUnsafeBytes(of: UUID().uuid, Array.init), in: databases.meta)
        loadedCatalog = nil
    }
}
