import Foundation

extension PostgreSQLCluster {
    /// Where PostgreSQL's server programs are: the newest `/usr/lib/postgresql/*/bin` (Debian),
    /// else `pg_config --bindir`, else the directory of an `initdb` on the `PATH`; nil when none
    /// holds `initdb`, `pg_ctl` and `psql`.
    public static let binDirectory: String? = {
        let debian = ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? [])
            .sorted { Int($0) ?? 0 > Int($1) ?? 0 }.map { "/usr/lib/postgresql/\($0)/bin" }
        let configured = ["/usr/bin/pg_config", "/usr/local/bin/pg_config"].compactMap { path in
            (try? runTool(path, ["--bindir"], in: "/"))?.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let onPath = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
            .filter { FileManager.default.isExecutableFile(atPath: $0 + "/initdb") }
            .map { (URL(fileURLWithPath: $0 + "/initdb").resolvingSymlinksInPath().path as NSString).deletingLastPathComponent }
        return (debian + configured + onPath).first { bin in
            ["initdb", "pg_ctl", "psql"].allSatisfy { FileManager.default.isExecutableFile(atPath: bin + "/" + $0) }
        }
    }()

    /// Why PostgreSQL tests cannot run here, or nil when they can.
    public static var notInstalled: String? {
        binDirectory == nil
            ? "PostgreSQL is not installed (no initdb, pg_ctl and psql under /usr/lib/postgresql/*/bin, "
                + "pg_config --bindir or the PATH): install Debian's postgresql, as .ci/run does"
            : nil
    }

    /// The name every cluster directory starts with, in the temporary directory.
    static let prefix = "kvstore-postgresql-"

    /// Stops the servers of clusters whose test process is gone (a crashed run), and removes them.
    static func stopAbandoned() {
        let temporary = NSTemporaryDirectory()
        for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? [] where name.hasPrefix(prefix) {
            let directory = (temporary as NSString).appendingPathComponent(name)
            guard let owner = firstNumber(in: directory + "/owner"), kill(pid_t(owner), 0) != 0, errno == ESRCH else { continue }
            if let server = firstNumber(in: directory + "/data/postmaster.pid"), isServer(server, of: directory + "/data") {
                kill(pid_t(server), SIGQUIT)
            }
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// Whether process `pid` is the server of `dataDirectory`: a stale `postmaster.pid` (after a
    /// reboot) may name any process, and the postmaster's working directory is its data directory.
    static func isServer(_ pid: Int32, of dataDirectory: String) -> Bool {
        let directory = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/cwd")
        return directory.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
            == URL(fileURLWithPath: dataDirectory).resolvingSymlinksInPath().standardizedFileURL.path
    }

    /// The number on the first line of `path`.
    static func firstNumber(in path: String) -> Int32? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return text.split(separator: "\n").first.flatMap { Int32($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// The data directories of the servers this process started and has not stopped; any left
    /// at exit get SIGQUIT (PostgreSQL's immediate shutdown), and their clusters are removed once
    /// they are gone.
    enum Running {
        private static let lock = NSLock()
        nonisolated(unsafe) private static var dataDirectories: Set<String> = []
        private static let stopAtExit: Void = { atexit { Running.stopAll() } }()

        static func add(_ dataDirectory: String) {
            _ = stopAtExit
            lock.withLock { _ = dataDirectories.insert(dataDirectory) }
        }

        static func remove(_ dataDirectory: String) { lock.withLock { _ = dataDirectories.remove(dataDirectory) } }

        static func stopAll() {
            for directory in lock.withLock({ dataDirectories }) {
                if let server = PostgreSQLCluster.firstNumber(in: directory + "/postmaster.pid"),
                   PostgreSQLCluster.isServer(server, of: directory) {
                    kill(pid_t(server), SIGQUIT)
                    for _ in 0..<200 where kill(pid_t(server), 0) == 0 { usleep(10_000) }  // up to 2 s
                }
                try? FileManager.default.removeItem(atPath: (directory as NSString).deletingLastPathComponent)
            }
        }
    }
}

/// The unprivileged user the server runs as when the tests run as root (PostgreSQL refuses root).
enum ServerUser {
    static let id: UInt32 = 65534  // nobody
    static var isNeeded: Bool { geteuid() == 0 }

    /// Makes `path` the server user's (when the tests run as root).
    static func giveAway(_ path: String) throws {
        guard isNeeded else { return }
        guard chown(path, id, id) == 0 else {
            throw FixtureError("cannot chown \(path) to nobody: \(String(cString: strerror(errno)))")
        }
    }

    /// Runs a server program, as `nobody` through `setpriv` when root.
    @discardableResult
    static func run(_ program: String, _ arguments: [String], in directory: String) throws -> String {
        guard isNeeded else { return try runTool(program, arguments, in: directory) }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
            throw FixtureError("running as root, and /usr/bin/setpriv (util-linux) is missing to run \(program) as nobody")
        }
        return try runTool("/usr/bin/setpriv", ["--reuid=\(id)", "--regid=\(id)", "--clear-groups", program] + arguments, in: directory)
    }
}

/// Runs `program` in `directory` and returns what it printed. Spawned directly, with its output
/// going to a file and every other descriptor closed: a server it starts keeps what it inherits,
/// so a pipe (Foundation's `Process` watches one) would never reach its end, and another test's
/// pipe held open by the server would hang that test. A program still running after `timeout`
/// (a `psql` waiting on a lock or on a server that never answers) is killed: the test fails
/// naming it instead of hanging with every thread idle.
/// - Throws: ``FixtureError`` naming the command and its output when it fails or is killed.
func runTool(_ program: String, _ arguments: [String], in directory: String, timeout: Duration = .seconds(300)) throws -> String {
    let outputPath = (NSTemporaryDirectory() as NSString).appendingPathComponent("kvstore-tool-" + UUID().uuidString)
    defer { try? FileManager.default.removeItem(atPath: outputPath) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    guard let closeFrom = GlibcSpawn.closeFrom, let changeDirectory = GlibcSpawn.changeDirectory else {
        throw FixtureError("this C library lacks posix_spawn_file_actions_addclosefrom_np or _addchdir_np (glibc 2.34 has them)")
    }
    _ = closeFrom(&actions, 3)
    _ = changeDirectory(&actions, directory)
    let argv = ([program] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid = pid_t()
    let spawned = posix_spawn(&pid, program, &actions, nil, argv, environ)
    let command = ([program] + arguments).joined(separator: " ")
    guard spawned == 0 else { throw FixtureError("cannot run \(command): \(String(cString: strerror(spawned)))") }
    var status: Int32 = 0
    let deadline = ContinuousClock.now + timeout
    while waitpid(pid, &status, WNOHANG) != pid {
        guard ContinuousClock.now < deadline else {
            kill(pid, SIGKILL)
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            throw FixtureError("\(command) did not finish within \(timeout) and was killed: \(text)")
        }
        usleep(2_000)
    }
    let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
    guard status & 0x7F == 0, (status >> 8) & 0xFF == 0 else {  // exited, with status 0
        throw FixtureError("\(command) failed (wait status \(status)): \(text)")
    }
    return text
}

/// glibc's spawn actions that Swift's Glibc module does not import (they need `_GNU_SOURCE`).
private enum GlibcSpawn {
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    typealias ChangeDirectory = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    static let closeFrom: CloseFrom? = symbol("posix_spawn_file_actions_addclosefrom_np")
    static let changeDirectory: ChangeDirectory? = symbol("posix_spawn_file_actions_addchdir_np")

    private static func symbol<T>(_ name: String) -> T? {
        guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }  // RTLD_DEFAULT
        return unsafeBitCast(address, to: T.self)
    }
}
