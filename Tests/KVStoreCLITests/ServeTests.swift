import Foundation
import KVStore
import Testing
import TestSupport

/// `kvstore serve` and `kvstore replicate tcp://…` as processes, on loopback with ephemeral
/// ports.
@Suite(.tags(.subprocess, .network), .skippedByTag) struct ServeTests {
    let dir: TestDirectory
    let source: String
    let replica: String

    init() throws {
        dir = try TestDirectory()
        source = dir.path("source")
        replica = dir.path("replica")
        try makeSource(dir, "source")
    }

    /// Starts `kvstore serve SOURCE --listen …` (port 0: a free one). - Returns: the process and its port.
    private func serve(listen: String = "127.0.0.1:0") throws -> (BackgroundCommand, Int) {
        let server = try BackgroundCommand(["serve", source, "--listen", listen], in: dir)
        let line = try #require(server.waitForLines(1).first, "serve printed nothing: \(server.stderr)")
        #expect(line.hasPrefix("listening on 127.0.0.1:"))
        return (server, try #require(Int(line.split(separator: ":").last ?? "")))
    }

    /// The replica's checkpoint for the source, read in this process (0 before the replica exists).
    private func applied() -> UInt64 {
        var options = Store.Options()
        options.createIfMissing = false
        options.readOnly = true
        guard FileManager.default.fileExists(atPath: replica + "/data.mdb"),
              let store = try? Store(path: replica, options: options) else { return 0 }
        return (try? store.read { try $0.replicationSources().first?.appliedSequence }) ?? 0
    }

    private var sourceLast: UInt64 {
        get throws { try dir.withStore("source") { try $0.read { try $0.lastSequence() } } }
    }

    @Test func replicateOverTCPMakesAnIdenticalReplica() throws {
        let (server, port) = try serve()
        let last = try sourceLast

        let result = try dir.succeed("replicate", "tcp://127.0.0.1:\(port)", replica)

        #expect(result.stdout.hasPrefix("applied \(last) entries, skipped 0; source "))
        #expect(result.stdout.hasSuffix("applied through \(last) (source at \(last), lag 0)\n"))
        #expect(try dir.succeed("diff", source, replica).stdout.isEmpty)
        try dir.succeed("verify", replica)
        try dir.fail("replicate", "tcp://127.0.0.1:\(port)", source, with: "a store cannot replicate itself")
        #expect(server.stop() == 0)
        #expect(server.stderr.contains("serve: streaming to 127.0.0.1:"))
    }

    @Test func aNewReplicaOverTCPStartsFromASnapshotWhenAsked() throws {
        let (server, port) = try serve()
        let last = try sourceLast

        let result = try dir.succeed("replicate", "tcp://127.0.0.1:\(port)", replica, "--snapshot")

        #expect(result.stdout.hasPrefix("applied 0 entries, skipped 0; source "))
        #expect(result.stdout.hasSuffix("applied through \(last) (source at \(last), lag 0); seeded from a snapshot\n"))
        #expect(try dir.succeed("diff", source, replica).stdout.isEmpty)
        #expect(try dir.succeed("journal", "list", replica).stdout.isEmpty)
        #expect(server.stop() == 0)
        #expect(server.stderr.contains("serve: sending 127.0.0.1:"))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.url.path).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty)
    }

    @Test(.tags(.crash)) func aFollowingReplicaResumesWithoutLossOrDuplicatesAfterTheServerIsKilledAndRestarted() throws {
        var (server, port) = try serve()
        let follower = try BackgroundCommand(["replicate", "tcp://127.0.0.1:\(port)", replica, "--follow"], in: dir)
        try dir.commitCounter(1...5, to: source)
        #expect(waitUntil { applied() == (try? sourceLast) })

        #expect(server.stop(signal: SIGKILL) == SIGKILL)
        try dir.commitCounter(6...10, to: source)         // while no server runs
        (server, _) = try serve(listen: "127.0.0.1:\(port)")
        try dir.commitCounter(11...15, to: source)

        let last = try sourceLast
        #expect(waitUntil { applied() == last })
        #expect(follower.stop() == 0)
        #expect(server.stop() == 0)
        #expect(try dir.succeed("diff", source, replica).stdout.isEmpty)
        // Every source entry journaled once by the replica: as many entries as the source has.
        #expect(try dir.succeed("journal", "list", replica).lines.count == Int(last))
        try dir.succeed("verify", replica)
    }

    @Test func serveRefusesABadAddressABusyPortAndAMissingStore() throws {
        try dir.fail("serve", source, "--listen", "localhost", with: "'localhost' is not HOST:PORT")
        try dir.fail("serve", source, "--listen", "127.0.0.1:70000", with: "port 70000 is not between 0 and 65535")
        try dir.fail("serve", dir.path("nothing"), "--listen", "0", with: "nothing")
        let (server, port) = try serve()
        try dir.fail("serve", source, "--listen", "127.0.0.1:\(port)", with: "cannot listen on 127.0.0.1:\(port): ")
        #expect(server.stop(signal: SIGINT) == 0)   // SIGINT stops it as cleanly as SIGTERM
    }

    @Test func replicateFromNothingListeningFailsWithOneLineAndCreatesNothing() throws {
        let (server, port) = try serve()
        #expect(server.stop() == 0)

        try dir.fail("replicate", "tcp://127.0.0.1:\(port)", replica, with: "tcp://127.0.0.1:\(port): cannot connect: Connection refused")
        try dir.fail("replicate", "tcp://127.0.0.1", replica, with: "'127.0.0.1' is not HOST:PORT")

        #expect(!FileManager.default.fileExists(atPath: replica))
    }
}
