import Foundation

/// Where the hub is and how to reach it, from a URL in libpq's form:
///
/// ```
/// postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=MODE&schema=NAME&sslrootcert=FILE&connect_timeout=SECONDS&request_timeout=SECONDS]
/// ```
///
/// The password comes from the URL (percent-encoded), else from a password file (its first line;
/// the file must be readable by its owner only, as with ssh keys), else from the environment
/// variable `PGPASSWORD`; giving it in both the URL and a file is an error. It is never part of
/// ``description``, of an error, or of a log message.
///
/// ```swift
/// let hub = try HubConfiguration(url: "postgres://sync@db.example/app?sslmode=verify-full",
///                                passwordFile: "/etc/kvstore/hub-password")
/// print(hub)   // postgres://sync@db.example:5432/app?sslmode=verify-full
/// ```
///
/// Options: `sslmode` (``TLSMode``, default `disable`), `schema` (the hub's tables, default
/// `kvstore_sync`: lowercase letters, digits and `_`), `sslrootcert` (a PEM file of the CAs to
/// trust instead of the system's), `connect_timeout` (seconds to wait for the connection and
/// authentication, default 10) and `request_timeout` (seconds to wait for the answer to each
/// request once connected, default 30: a hub that stops answering mid-session fails the request
/// and the connection instead of holding the caller forever). Any other option is an error.
public struct HubConfiguration: Sendable, Equatable, CustomStringConvertible, CustomReflectable {
    /// How the connection uses TLS, as libpq's `sslmode`.
    public enum TLSMode: String, Sendable, CaseIterable {
        /// Plain TCP.
        case disable
        /// Plain TCP (libpq would try TLS if the server insisted; this build does not).
        case allow
        /// TLS when the server offers it, plain otherwise; the certificate is not checked.
        case prefer
        /// TLS, refused when the server does not offer it; the certificate is not checked.
        case require
        /// TLS with a certificate signed by a trusted CA, for any host name.
        case verifyCA = "verify-ca"
        /// TLS with a certificate signed by a trusted CA, for the host connected to.
        case verifyFull = "verify-full"
    }

    /// The user the hub knows this store by.
    public let user: String
    /// The server's host name or IP address.
    public let host: String
    /// The server's TCP port.
    public let port: Int
    /// The database holding the hub's schema.
    public let database: String
    /// The schema holding the hub's tables.
    public let schema: String
    /// How the connection uses TLS.
    public let tls: TLSMode
    /// A PEM file of the CAs trusted for `verify-ca` and `verify-full` (nil: the system's).
    public let rootCertificateFile: String?
    /// How long connecting and authenticating may take before the hub counts as unreachable.
    public let connectTimeout: Duration
    /// How long one request (an upload batch, a download page, a registration) may wait for the
    /// hub's answer before it fails with ``SyncError/Code/connectionLost`` and the connection is
    /// closed. Default ``defaultRequestTimeout``.
    public let requestTimeout: Duration
    let password: Secret?

    /// The schema used when the URL names none.
    public static let defaultSchema = "kvstore_sync"

    /// The request time-out used when the URL gives no `request_timeout`: 30 seconds, well above
    /// what an upload of a few thousand changes takes on a loaded server.
    public static let defaultRequestTimeout = Duration.seconds(30)

    /// Reads a hub URL, and the password from `passwordFile` or `environment["PGPASSWORD"]` when
    /// the URL has none.
    /// - Throws: ``SyncError`` (``SyncError/Code/configuration``) naming what is wrong, never
    ///   quoting the password.
    public init(url: String, passwordFile: String? = nil,
                environment: [String: String] = ProcessInfo.processInfo.environment) throws(SyncError) {
        let parsed = try HubURL(url)
        user = parsed.user
        host = parsed.host
        port = parsed.port
        database = parsed.database
        let options = try HubURL.Options(parsed.query)
        schema = options.schema
        tls = options.tls
        rootCertificateFile = options.rootCertificateFile
        connectTimeout = options.connectTimeout
        requestTimeout = options.requestTimeout
        password = try Secret.choose(url: parsed.password, file: passwordFile, environment: environment["PGPASSWORD"],
                                     hub: HubURL.redacted(user: user, host: host, port: port, database: database))
    }

    /// `postgres://USER@HOST:PORT/DATABASE`, with the options that differ from the defaults; no
    /// password.
    public var description: String {
        var options: [String] = []
        if tls != .disable { options.append("sslmode=\(tls.rawValue)") }
        if schema != Self.defaultSchema { options.append("schema=\(schema)") }
        let base = HubURL.redacted(user: user, host: host, port: port, database: database)
        return options.isEmpty ? base : base + "?" + options.joined(separator: "&")
    }

    /// The hub as errors name it: `postgres://USER@HOST:PORT/DATABASE`.
    var name: String { HubURL.redacted(user: user, host: host, port: port, database: database) }

    /// Shows the fields, the password as `<redacted>` (for `dump` and debuggers).
    public var customMirror: Mirror {
        Mirror(self, children: ["user": user, "host": host, "port": port, "database": database, "schema": schema,
                                "tls": tls, "password": password == nil ? "none" : "<redacted>"])
    }
}

/// A password, kept out of every text made from the values that hold it.
struct Secret: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    let value: String
    var description: String { "<redacted>" }
    var debugDescription: String { "<redacted>" }
    var customMirror: Mirror { Mirror(self, children: [:]) }
}
