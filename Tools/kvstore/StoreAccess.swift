import Foundation
import KVStore

/// How the commands open a store: readers never create one, writers create one only where
/// nothing is in the way.
enum StoreAccess {
    /// Opens an existing store read-only (`get`, `dump`, `journal list`): a wrong path is an
    /// error, never a new empty store, and nothing is written.
    static func openForReading(_ path: String) throws(StoreError) -> Store {
        var options = Store.Options()
        options.createIfMissing = false
        options.readOnly = true
        return try open(path, options)
    }

    /// Opens an existing store for writing (`rm`): a wrong path is an error.
    static func openExisting(_ path: String) throws(StoreError) -> Store {
        var options = Store.Options()
        options.createIfMissing = false
        return try open(path, options)
    }

    /// Opens a store for writing (`set`), creating it when nothing is at `path` or the directory
    /// there holds no store yet (nothing, or only what interrupted creations leave: see
    /// `StoreCreation`). A directory holding other files is not taken over: it must already be a
    /// store. Several processes may create one store at once: one makes it, the others open it.
    /// - Parameter mapSize: the map size to start with, when more than the store's (`load` sizes
    ///   it for its input, so the write need not grow the map and start again).
    static func openCreating(_ path: String, mapSize: Int? = nil, durability: Durability = .full) throws(StoreError) -> Store {
        var options = Store.Options()
        options.durability = durability
        if let mapSize { options.mapSize = max(options.mapSize, mapSize) }
        options.createIfMissing = StoreDirectory.isEmpty(atPath: path)
        return try open(path, options)
    }

    /// The stores this run opened: errors about their contents point to `kvstore verify`.
    nonisolated(unsafe) private(set) static var opened: Set<String> = []

    private static func open(_ path: String, _ options: Store.Options) throws(StoreError) -> Store {
        CrashGuard.note(store: path)
        let store = try Store(path: path, options: options)
        opened.insert(path)
        return store
    }
}
