import Foundation

/// A throwaway PostgreSQL server of the test's own: `initdb` into a new temporary directory,
/// started with `pg_ctl` on a free loopback port and a private socket directory (as `nobody` when
/// the tests run as root: PostgreSQL refuses to run as root), stopped (`pg_ctl stop -m immediate`)
/// and removed when the value goes away. Servers still running when the test process exits are
/// stopped then, and those a crashed run left behind are stopped by the next cluster started.
///
/// Tests tagged `.postgresql` (with `.skippedByTag`, in TestSupport) skip, saying why, when
/// PostgreSQL is not installed; the benchmark harness skips its sync figures then.
///
/// ```swift
/// let cluster = try PostgreSQLCluster()
/// try cluster.psql("CREATE DATABASE hub")
/// // postgres://…@127.0.0.1:\(cluster.port)/hub
/// ```
///
/// Settings favour speed over durability against a machine crash (`fsync=off`), not against the
/// server's: a commit acknowledged survives ``stopImmediately()`` and ``restart()``
/// (`synchronous_commit` stays on). The superuser is `postgres`, trusted on the socket; TCP connections authenticate
/// with SCRAM passwords.
public final class PostgreSQLCluster: Sendable {
    /// The cluster's directory: `data/` (the cluster), `socket/`, `server.log`.
    public let directory: String
    /// The loopback TCP port it listens on (127.0.0.1).
    public let port: Int
    /// The directory holding its Unix socket (`.s.PGSQL.<port>`).
    public var socketDirectory: String { directory + "/socket" }
    var dataDirectory: String { directory + "/data" }
    var logFile: String { directory + "/server.log" }

    /// Makes and starts a cluster.
    /// - Parameters:
    ///   - settings: `postgresql.conf` settings added to the defaults (values as written there,
    ///     quoted when text: `["ssl": "on", "ssl_cert_file": "'/…/server.pem'"]`).
    ///   - hostAuthentication: `pg_hba.conf` lines for TCP clients, replacing
    ///     `host all all 127.0.0.1/32 scram-sha-256`.
    ///   - files: files copied into the data directory, the server's and mode 0600 (name: path
    ///     of the original), such as a TLS certificate and key.
    /// - Throws: ``FixtureError`` with the failing command's output.
    public init(settings: [String: String] = [:], hostAuthentication: [String]? = nil, files: [String: String] = [:]) throws {
        guard let bin = Self.binDirectory else { throw FixtureError(Self.notInstalled ?? "PostgreSQL is missing") }
        Self.stopAbandoned()
        directory = (NSTemporaryDirectory() as NSString).appendingPathComponent(Self.prefix + UUID().uuidString)
        try FileManager.default.createDirectory(atPath: directory + "/socket", withIntermediateDirectories: true)
        try "\(getpid())\n".write(toFile: directory + "/owner", atomically: false, encoding: .utf8)
        port = try LoopbackListener().port  // closed at once: free for the server
        do {
            try ServerUser.giveAway(directory)
            try ServerUser.giveAway(directory + "/socket")
            try ServerUser.run(bin + "/initdb", ["-D", directory + "/data", "-U", "postgres", "-E", "UTF8", "--locale=C",
                                                 "--auth-local=trust", "--auth-host=scram-sha-256", "--no-sync"], in: directory)
            try configure(settings: settings, hostAuthentication: hostAuthentication)
            for (name, original) in files {
                let copy = dataDirectory + "/" + name
                try FileManager.default.copyItem(atPath: original, toPath: copy)
                chmod(copy, 0o600)
                try ServerUser.giveAway(copy)
            }
            try start()
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    deinit {
        stopImmediately()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Starts the server (again) on the same port, waiting until it accepts connections.
    public func start() throws {
        guard let bin = Self.binDirectory else { return }
        try ServerUser.run(bin + "/pg_ctl", ["start", "-D", dataDirectory, "-w", "-t", "60", "-l", logFile], in: directory)
        Running.add(dataDirectory)
    }

    /// Stops the server at once (`pg_ctl stop -m immediate`: clients see the connection drop).
    public func stopImmediately() {
        guard let bin = Self.binDirectory else { return }
        _ = try? ServerUser.run(bin + "/pg_ctl", ["stop", "-D", dataDirectory, "-m", "immediate", "-w"], in: directory)
        Running.remove(dataDirectory)
    }

    /// Stops and starts the server on the same port and socket.
    public func restart() throws {
        stopImmediately()
        try start()
    }

    /// Runs SQL as the superuser through the Unix socket (`psql -v ON_ERROR_STOP=1`) and returns
    /// what it printed: unaligned, tuples only, one row a line.
    /// - Throws: ``FixtureError`` with psql's message when a statement fails.
    @discardableResult
    public func psql(_ sql: String, database: String = "postgres") throws -> String {
        guard let bin = Self.binDirectory else { return "" }
        return try runTool(bin + "/psql", ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", socketDirectory, "-p", "\(port)",
                                           "-U", "postgres", "-d", database, "-c", sql], in: directory)
    }

    /// The server's log, for a failing test's message.
    public var log: String { (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "" }

    private func configure(settings: [String: String], hostAuthentication: [String]?) throws {
        let defaults = [
            "port": "\(port)", "listen_addresses": "'127.0.0.1'", "unix_socket_directories": "'\(socketDirectory)'",
            "fsync": "off", "full_page_writes": "off", "max_connections": "40", "autovacuum": "off",
            "shared_buffers": "32MB", "log_min_messages": "warning",
        ]
        let lines = defaults.merging(settings) { $1 }.sorted { $0.key < $1.key }.map { "\($0.key) = \($0.value)" }
        try append(lines, to: dataDirectory + "/postgresql.conf")
        let hba = dataDirectory + "/pg_hba.conf"
        let local = "local all all trust"
        try Data((([local] + (hostAuthentication ?? ["host all all 127.0.0.1/32 scram-sha-256"])).joined(separator: "\n") + "\n").utf8)
            .write(to: URL(fileURLWithPath: hba))
        try ServerUser.giveAway(hba)
    }

    private func append(_ lines: [String], to path: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(("\n" + lines.joined(separator: "\n") + "\n").utf8))
    }
}

/// A fixture that could not be set up (a cluster made, started or queried, a socket bound): the
/// command or call and what it said.
public struct FixtureError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
