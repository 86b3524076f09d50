import Foundation
import KVStore
import KVStoreSync
import PostgreSQLFixture

/// The hub of the sync figures: a throwaway PostgreSQL cluster started as the tests start theirs
/// (``PostgreSQLCluster``: `initdb` into a temporary directory, `pg_ctl` on a free loopback port
/// and a private socket directory, as `nobody` when root), but durable as a real hub is
/// (`fsync` and `full_page_writes` on). Each figure syncs through a schema of its own.
final class SyncHub {
    let cluster: PostgreSQLCluster
    private static let user = "bench", password = "bench-password", database = "hub"

    init() throws {
        cluster = try PostgreSQLCluster(settings: ["fsync": "on", "full_page_writes": "on", "max_connections": "60"])
        try cluster.psql("CREATE ROLE \(Self.user) LOGIN PASSWORD '\(Self.password)'")
        try cluster.psql("CREATE DATABASE \(Self.database) OWNER \(Self.user)")
    }

    /// A hub of its own (the client creates schema `schema` on first connection).
    func configuration(schema: String) throws -> HubConfiguration {
        try HubConfiguration(url: "postgres://\(Self.user):\(Self.password)@127.0.0.1:\(cluster.port)/\(Self.database)?schema=\(schema)",
                             environment: [:])
    }

    /// A new store under `root` syncing kind `note` with `hub`, after one pass (sync enabled,
    /// the hub's schema made).
    static func syncedStore(_ path: String, hub: HubConfiguration, durability: Durability,
                            options: SyncEngine.Options = SyncEngine.Options(kinds: ["note"])) throws -> (Store, SyncEngine) {
        var storeOptions = Store.Options()
        storeOptions.durability = durability
        storeOptions.mapSize = 1 << 30
        let store = try Store(path: path, options: storeOptions)
        let engine = SyncEngine(store: store, hub: hub, options: options)
        _ = try blocking { try await engine.sync() }
        return (store, engine)
    }
}

/// Runs `body` on the concurrency pool and waits for it on this thread (the harness is
/// synchronous; its thread is not one of the pool's).
func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let outcome = Outcome<T>()
    Task {
        do { outcome.set(.success(try await body())) } catch { outcome.set(.failure(error)) }
    }
    return try outcome.wait().get()
}

/// A result one thread hands to another that waits for it.
final class Outcome<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private let done = DispatchSemaphore(value: 0)
    private var result: Result<T, any Error>?

    func set(_ result: Result<T, any Error>) {
        lock.withLock { self.result = result }
        done.signal()
    }

    func wait() -> Result<T, any Error> {
        done.wait()
        return lock.withLock { result! }
    }
}

/// Followers (``SyncEngine/follow(_:)``) running on the concurrency pool until stopped.
final class Followers {
    private var tasks: [Task<Void, any Error>] = []

    func start(_ engine: SyncEngine, _ events: @escaping @Sendable (SyncEvent) -> Void = { _ in }) {
        tasks.append(Task.detached { try await engine.follow(events) })
    }

    /// Cancels them and waits until they returned; rethrows a follower's error.
    func stop() throws {
        for task in tasks { task.cancel() }
        let tasks = tasks
        try blocking { for task in tasks { try await task.value } }
        self.tasks = []
    }
}

/// Polls `condition` every `interval` ms until it holds; fails after `timeout` seconds.
func waitUntil(_ what: String, every interval: Double = 1, timeout: Double = 300, _ condition: () throws -> Bool) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while try !condition() {
        guard Date() < deadline else { throw SetupError("timed out after \(Int(timeout)) s waiting until \(what)") }
        usleep(useconds_t(interval * 1000))
    }
}
