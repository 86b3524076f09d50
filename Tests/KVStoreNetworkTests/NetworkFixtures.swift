import Foundation
import KVStore
@testable import KVStoreNetwork
import Testing
import TestSupport

extension TemporaryDirectory {
    /// A new store at `name` in the directory (a test's source, replicas, snapshots go there),
    /// opened without fsync (`noSync`): no test here is about durability. Replicas that a
    /// ``JournalClient`` makes keep its default options, as do the tests' openings of them.
    func store(_ name: String) throws -> Store {
        var options = Store.Options()
        options.durability = .noSync
        return try Store(path: path(name), options: options)
    }
}

/// A server of `store` on an ephemeral loopback port, started.
func startedServer(_ store: Store, configure: (inout JournalServer.Configuration) -> Void = { _ in }) throws -> JournalServer {
    var configuration = JournalServer.Configuration()
    configuration.positionInterval = .milliseconds(50)
    configure(&configuration)
    let server = JournalServer(store: store, configuration: configuration)
    try server.start()
    return server
}

/// A client of `server` replicating into `path`.
func client(of server: JournalServer, into path: String, follow: Bool = false, configure: (inout JournalClient.Options) -> Void = { _ in }) -> JournalClient {
    var options = JournalClient.Options(follow: follow)
    options.reconnectDelay = .milliseconds(20) ... .milliseconds(100)
    configure(&options)
    return JournalClient(host: server.host, port: server.port, replica: path, options: options)
}

/// A following client running on a thread of its own until ``stop()``.
final class FollowingClient: Sendable {
    let client: JournalClient
    private let finished = DispatchSemaphore(value: 0)
    private let failure = Failures()
    private let latest = LockedStatus()

    init(_ client: JournalClient) {
        self.client = client
        Thread { [self] in
            do { try client.run { status in self.latest.set(status) } } catch { failure.add("\(error)") }
            finished.signal()
        }.start()
    }

    /// The status after the last applied batch.
    var status: Replicator.Status? { latest.value }

    /// Stops the client. - Returns: what it failed with, if anything.
    @discardableResult
    func stop() -> [String] {
        client.stop()
        finished.wait()
        return failure.all
    }

    /// Whether the client ended by itself (failed, or done) within `seconds`.
    func ended(within seconds: Double) -> Bool {
        guard finished.wait(timeout: .now() + seconds) == .success else { return false }
        finished.signal()   // for stop()
        return true
    }

    /// Waits until the replica has applied the source through `sequence`.
    @discardableResult
    func waitForCheckpoint(_ sequence: UInt64) -> Bool {
        waitUntil { (status?.appliedSequence ?? 0) >= sequence }
    }
}

/// A status handed from the client's thread to the test's.
final class LockedStatus: @unchecked Sendable {
    private let lock = NSLock()
    private var status: Replicator.Status?

    func set(_ status: Replicator.Status) { lock.withLock { self.status = status } }
    var value: Replicator.Status? { lock.withLock { status } }
}

/// `count` commits of one insert each into `store`, kind `item`, ids from `start`.
func commitItems(_ count: Int, startingAt start: Int = 0, into store: Store) throws {
    for i in start..<(start + count) {
        try store.insert(["n": .int(Int64(i)), "name": .string("item \(i)")], as: RecordRef("item/\(i)"))
    }
}

/// One commit of `count` records of kind `blob`, each a text of `bytes` bytes: a journal larger
/// than a connection's buffers.
func commitBlobs(_ count: Int, of bytes: Int, into store: Store) throws {
    let text = String(repeating: "x", count: bytes)
    try store.write { txn in
        for i in 0..<count { try txn.insert(["text": .string(text)], as: RecordRef("blob/\(i)")) }
    }
}

/// The records of two stores differ nowhere.
func sameRecords(_ a: Store, _ b: Store) throws -> Bool {
    var differences = 0
    try a.forEachDifference(from: b) { _ in differences += 1; return false }
    return differences == 0
}

/// The last sequence of `store`'s journal.
func lastSequence(_ store: Store) throws -> UInt64 {
    try store.read { try $0.lastSequence() }
}

/// `store`'s checkpoint for `source`.
func checkpoint(of store: Store, for source: Store) throws -> UInt64 {
    try store.read { try $0.replicationCheckpoint(for: source.id) }
}

extension SocketConnection {
    /// A raw connection to `server` that sent its opening (with `token`) and read the server's
    /// greeting. - Returns: it and the server's first frame: the hello, or its refusal.
    static func opened(to server: JournalServer, token: [UInt8] = [], timeout: Duration = .seconds(30), receiveBuffer: Int32? = nil) throws -> (SocketConnection, ProtocolFrame) {
        let connection = try SocketConnection(host: server.host, port: server.port, timeout: timeout, receiveBuffer: receiveBuffer)
        try connection.sendAll(ClientOpening(token: token).bytes)
        #expect(try connection.read(ReplicationProtocol.greeting.count) == ReplicationProtocol.greeting)
        return (connection, try connection.readFrame())
    }
}
