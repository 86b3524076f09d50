import Foundation
import Hummingbird
import KVStore
import Logging
import NIOCore
import Synchronization

/// The studio: a web app over one store, served on a loopback port to a browser that opens
/// ``url`` (its one-time token is exchanged for a cookie on first load).
///
/// ```swift
/// let studio = StudioServer(store: store)
/// let port = try await studio.start()
/// print(studio.url)   // http://127.0.0.1:PORT/?token=…
/// // … later
/// await studio.stop()
/// ```
///
/// Every request without the token (in the query or the cookie) is refused: 401 without any, 403
/// with a wrong one. Edits go through the store's ordinary write path and are refused with 403
/// when ``Configuration/readOnly``.
public final class StudioServer: Sendable {
    /// Where the studio listens and what it allows.
    public struct Configuration: Sendable {
        /// The address to listen on; loopback by default.
        public var host = "127.0.0.1"
        /// The port; 0 picks a free one (``start()`` returns it).
        public var port = 0
        /// Refuse every edit (set, remove, insert, revert).
        public var readOnly = false

        /// The default configuration: loopback, a free port, edits allowed.
        public init() {}
    }

    /// The secret a browser must present, as `?token=` once and then as a cookie.
    public let token: String
    let store: Store
    let configuration: Configuration
    let live: LiveFeed
    private let running = Mutex<(task: Task<Void, Never>?, port: Int)>((nil, 0))

    /// A studio over `store` (opened read-only when `configuration.readOnly`, if wished).
    public init(store: Store, configuration: Configuration = Configuration()) {
        self.store = store
        self.configuration = configuration
        self.token = Self.randomToken()
        self.live = LiveFeed(store: store)
    }

    /// The port listened on (0 before ``start()``).
    public var port: Int { running.withLock { $0.port } }

    /// The URL to open, with the token.
    public var url: String {
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return "http://\(host):\(port)/?token=\(token)"
    }

    /// Binds and starts serving; returns the port once listening.
    /// - Throws: ``StudioStartError`` when the address cannot be bound, or the journal cannot be followed.
    @discardableResult
    public func start() async throws -> Int {
        try live.start()
        let (bound, continuation) = AsyncStream<Int>.makeStream()
        var logger = Logger(label: "kvstore.studio")
        logger.logLevel = .critical
        let app = Application(
            router: StudioRoutes(studio: self).router(),
            configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port)),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            },
            logger: logger)
        let failure = Mutex<String?>(nil)
        let task = Task {
            do {
                try await app.run()
            } catch {
                failure.withLock { $0 = "\(error)" }
            }
            continuation.finish()
        }
        guard let port = await bound.first(where: { _ in true }) else {
            live.stop()
            let reason = failure.withLock { $0 } ?? "the server stopped"
            throw StudioStartError(message: "cannot listen on \(configuration.host):\(configuration.port): \(reason)")
        }
        running.withLock { $0 = (task, port) }
        return port
    }

    /// Ends the live streams, closes the listener and every connection, and returns once stopped.
    public func stop() async {
        live.stop()
        let task = running.withLock { state in
            defer { state.task = nil }
            return state.task
        }
        task?.cancel()
        await task?.value
    }

    /// 32 random bytes, as hex.
    private static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}

/// The studio could not start: its address is taken or invalid, or the journal cannot be followed.
public struct StudioStartError: Error, CustomStringConvertible {
    /// One line naming the address and the reason.
    public let message: String
    /// The message.
    public var description: String { message }
}
