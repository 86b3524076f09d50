/// Something that went wrong talking to the hub: one line naming the hub (never its password) and
/// the problem.
///
/// ```swift
/// do { _ = try await HubClient.connect(configuration) } catch {
///     print(error)   // postgres://sync@db.example:5432/app: cannot reach the hub: connection refused
///     if error.isTransient { /* try again later */ }
/// }
/// ```
public struct SyncError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, for callers that switch on it.
    public enum Code: String, Sendable {
        /// The hub URL, its options or the password file cannot be used.
        case configuration
        /// No connection could be made: nothing listens there, the host is unknown, or the server
        /// did not answer within the connect time-out.
        case unreachable
        /// The server refused the user name or password.
        case authenticationFailed
        /// The TLS handshake failed, or the server does not offer TLS that the URL requires.
        case tlsFailed
        /// The connection broke during a request.
        case connectionLost
        /// The hub's schema is of a newer version than this build understands.
        case schemaTooNew
        /// A row in the hub cannot be read as a change (see ``row``).
        case damagedRow
        /// The download cursor is past every transaction the hub has run: it was given by another
        /// server (the hub was restored from a dump into a new cluster, or the store points at
        /// another hub). Reading on from it would skip every change the hub takes from now on;
        /// download again from ``HubCursor/start`` (applying a change twice changes nothing).
        case cursorAhead
        /// A change the hub cannot hold: its key contains U+0000 (see ``HubChange``).
        case unrepresentableValue
        /// The store was restored from a backup or copied with its id: the hub holds changes of
        /// the store's id that its journal does not (a sequence past its journal's end, or one
        /// with other content). Syncing it would lose or fork changes; sync a new store instead.
        case restoredOrCopied
        /// The store refused what sync asked of it (a kind that has records before it syncs, a
        /// downloaded change its kind's rules refuse), saying why.
        case storeRefused
        /// The server refused a request (permissions, a constraint), saying why.
        case refused
    }

    /// What went wrong.
    public let code: Code
    /// The hub, `postgres://USER@HOST:PORT/DB` (no password).
    public let hub: String
    /// The problem.
    public let message: String
    /// The damaged row's `id` in the hub's changes table, for ``Code/damagedRow``.
    public let row: Int64?

    /// An error with `code` and `message` about the hub `hub`.
    public init(_ code: Code, hub: String, _ message: String, row: Int64? = nil) {
        self.code = code
        self.hub = hub
        self.message = message
        self.row = row
    }

    /// The hub and the message.
    public var description: String { hub.isEmpty ? message : "\(hub): \(message)" }

    /// Whether trying again later may work (a follower reconnects).
    public var isTransient: Bool { code == .unreachable || code == .connectionLost }
}
