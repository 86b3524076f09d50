import Foundation
import Testing
@testable import PostgreSQLFixture
import TestSupport

/// The clean-up of clusters a crashed test run left behind must stop only their servers: after a
/// reboot (a persistent temporary directory) the number in a stale `postmaster.pid` may be any
/// process's, and the tests run as root.
@Suite(.tags(.subprocess), .skippedByTag) struct AbandonedClusterTests {
    @Test func aStalePostmasterPidOfAnotherProcessIsNotSignalled() throws {
        let finished = Process()
        finished.executableURL = URL(fileURLWithPath: "/bin/true")
        try finished.run()
        finished.waitUntilExit()  // its pid: an owner that is gone
        let bystander = try spawnWithNoSignalBlocked("/bin/sleep", "30")
        defer {
            kill(bystander, SIGKILL)
            var status: Int32 = 0
            waitpid(bystander, &status, 0)
        }

        let directory = (NSTemporaryDirectory() as NSString).appendingPathComponent(PostgreSQLCluster.prefix + UUID().uuidString)
        try FileManager.default.createDirectory(atPath: directory + "/data", withIntermediateDirectories: true)
        try "\(bystander)\n\(directory)/data\n".write(toFile: directory + "/data/postmaster.pid", atomically: false, encoding: .utf8)
        // Last: another test's cluster may clean up at any moment, and only directories with an owner.
        try "\(finished.processIdentifier)\n".write(toFile: directory + "/owner", atomically: false, encoding: .utf8)
        PostgreSQLCluster.stopAbandoned()
        usleep(200_000)
        var status: Int32 = 0
        #expect(waitpid(bystander, &status, WNOHANG) == 0, "the bystander ended (wait status \(status))")
        #expect(!FileManager.default.fileExists(atPath: directory))  // the stale cluster is still removed
    }

    /// A child that any signal reaches (Foundation's `Process` passes on the blocked signals of the
    /// thread that starts it).
    private func spawnWithNoSignalBlocked(_ program: String, _ arguments: String...) throws -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, program, nil, &attributes, argv, environ)
        guard spawned == 0 else { throw FixtureError("cannot run \(program): \(String(cString: strerror(spawned)))") }
        return pid
    }
}
