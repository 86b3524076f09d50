import Foundation
import KVStore
import Testing
import TestSupport

/// `replicate SOURCE DEST [--follow] [--snapshot]` between store directories.
@Suite(.tags(.subprocess), .skippedByTag) struct ReplicateTests {
    let dir: TestDirectory
    let source: String
    let replica: String

    init() throws {
        dir = try TestDirectory()
        source = dir.path("source")
        replica = dir.path("replica")
        try makeSource(dir, "source")
    }

    private var sourceID: String {
        get throws { try dir.withStore("source") { $0.id.uuidString.lowercased() } }
    }

    private var sourceLast: UInt64 {
        get throws { try dir.withStore("source") { try $0.read { try $0.lastSequence() } } }
    }

    /// A replica named with one character, relative to the working directory (Foundation's path
    /// methods trapped on it): replicated, seeded and replicated again like any other.
    @Test func aOneLetterReplicaPathWorks() throws {
        for (name, extra) in [("e", [String]()), ("f/", ["--snapshot"]), ("g", ["--snapshot"])] {
            try dir.succeed(["replicate", source, name] + extra)
            try dir.succeed(["replicate", source, name] + extra)
            #expect(try dir.succeed("diff", source, name).stdout.isEmpty, "\(name)")
        }
    }

    @Test func replicateCreatesAnIdenticalReplicaThatVerifiesAndReportsItsLag() throws {
        let last = try sourceLast, id = try sourceID
        let result = try dir.succeed("replicate", source, replica)
        #expect(result.stdout == "applied \(last) entries, skipped 0; source \(id) applied through \(last) (source at \(last), lag 0)\n")
        #expect(try dir.succeed("diff", source, replica).stdout.isEmpty)
        try dir.succeed("verify", replica)
        let stat = try TypedJSON.dictionary(from: dir.succeed("stat", replica, "--format", "json").stdout)
        #expect(stat["replication"] == [["source": .string(id), "applied": .int(Int64(last)), "sourceLast": .int(Int64(last)), "lag": 0]])
        // Nothing new: nothing applied; then only the new commit.
        #expect(try dir.succeed("replicate", source, replica).stdout.hasPrefix("applied 0 entries"))
        try dir.succeed("set", source, "person/bob", "age", "40")
        #expect(try dir.succeed("replicate", source, replica).stdout.hasPrefix("applied 1 entries, skipped 0"))
        #expect(try dir.succeed("diff", source, replica).stdout.isEmpty)
    }

    @Test func aChainOfReplicasKeepsTheOriginalOrigin() throws {
        try dir.succeed("replicate", source, replica)
        try dir.succeed("replicate", replica, dir.path("c"))
        #expect(try dir.succeed("diff", source, dir.path("c")).stdout.isEmpty)
        let origins = try dir.succeed("journal", "list", dir.path("c")).objects().map { $0["origin"] }
        let id = try sourceID
        #expect(!origins.isEmpty && origins.allSatisfy { origin in
            if case .dictionary(let o)? = origin { return o["store"] == .string(id) } else { return false }
        })
    }

    @Test func snapshotSeedsANewReplicaAndATruncatedSourceReseedsAStaleOne() throws {
        let last = try sourceLast
        let seeded = try dir.succeed("replicate", source, replica, "--snapshot").stdout
        #expect(seeded.hasPrefix("applied 0 entries") && seeded.hasSuffix("; seeded from a snapshot\n"))
        #expect(try dir.succeed("diff", source, replica).stdout.isEmpty)
        #expect(try dir.succeed("journal", "list", replica).stdout.isEmpty)
        try dir.succeed("verify", replica)
        // The source moves on and drops the entries the replica has not applied.
        try dir.succeed("set", source, "person/bob", "age", "40")
        try dir.succeed("set", source, "person/bob", "age", "41")
        try dir.succeed("journal", "truncate", source, "--before", String(last + 2))
        let reseeded = try dir.succeed("replicate", source, replica).stdout
        #expect(reseeded.contains("applied through \(last + 2)") && reseeded.hasSuffix("; seeded from a snapshot\n"))
        #expect(try dir.succeed("diff", source, replica).stdout.isEmpty)
        try dir.succeed("verify", replica)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.url.path).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty)
    }

    @Test func followAppliesCommitsFromOtherProcessesUntilSIGTERM() throws {
        let follower = try BackgroundCommand(["replicate", source, replica, "--follow"], in: dir)
        for age in 1...5 { try dir.succeed("set", source, "person/bob", "age", String(age)) }
        let last = try sourceLast
        let caughtUp = waitUntil {
            guard FileManager.default.fileExists(atPath: replica + "/data.mdb"),
                  let store = try? Store(path: replica, options: { var o = Store.Options(); o.createIfMissing = false; o.readOnly = true; return o }()) else { return false }
            return (try? store.read { try $0.replicationSources().first?.appliedSequence }) == last
        }
        #expect(caughtUp)
        #expect(follower.stop() == 0)
        #expect(follower.lines.last?.contains("applied through \(last)") == true)
        #expect(follower.stderr.isEmpty)  // not a terminal: no lag line
        #expect(try dir.succeed("diff", source, replica).stdout.isEmpty)
    }

    /// The source sequence applied to the replica so far (0 before it exists).
    private var appliedThrough: UInt64 {
        guard FileManager.default.fileExists(atPath: replica + "/data.mdb"),
              let store = try? Store(path: replica, options: { var o = Store.Options(); o.createIfMissing = false; o.readOnly = true; return o }())
        else { return 0 }
        return (try? store.read { try $0.replicationSources().first?.appliedSequence }) ?? 0
    }

    /// The replicator killed with SIGKILL at random moments while a writer process commits, then
    /// resumed: no change lost or applied twice. Each run is killed only once it applied something
    /// of its own (a kill before it got going — the process still starting, on a loaded machine —
    /// would test nothing), at a random moment after that.
    @Test(.tags(.crash)) func killedAtRandomPointsAndResumedTheReplicaEqualsTheSource() throws {
        var records = ""
        for i in 0..<6_000 { records += #"{"kind":"item","id":"\#(i)","values":{"n":\#(i),"label":"item \#(i)"}}"# + "\n" }
        try dir.write(records, to: "items.jsonl")
        let writer = try BackgroundCommand(["load", source, dir.path("items.jsonl"), "--batch", "20"], in: dir)
        var generator = SystemRandomNumberGenerator()
        var killedWhileWriting = 0
        for _ in 0..<20 {
            let before = appliedThrough
            let replicate = try BackgroundCommand(["replicate", source, replica, "--follow"], in: dir)
            let started = waitUntil {
                !replicate.isRunning || appliedThrough > before || (!writer.isRunning && appliedThrough == (try? sourceLast))
            }
            #expect(started, "\(replicate.stderr)")
            if writer.isRunning { killedWhileWriting += 1 }
            Thread.sleep(forTimeInterval: Double.random(in: 0...0.03, using: &generator))
            #expect(replicate.stop(signal: SIGKILL) == SIGKILL, "ended by itself: \(replicate.stderr)")
        }
        #expect(writer.waitForExit() == 0, "\(writer.stderr)")
        #expect(killedWhileWriting > 0)
        try dir.succeed("replicate", source, replica)
        #expect(try dir.succeed("diff", source, replica).stdout.isEmpty)
        try dir.succeed("verify", replica)
        #expect(try dir.succeed("dump", replica, "--kind", "item").stdout.split(separator: "\n").count == 6_000)
    }

    @Test func errorsAreOneLineAndCreateNothing() throws {
        try dir.fail("replicate", dir.path("missing"), replica, with: "no store here")
        try dir.fail("replicate", source, source, with: "a store cannot replicate itself")
        #expect(!FileManager.default.fileExists(atPath: replica))
        try dir.write("not a store", to: "file")
        try dir.fail("replicate", source, dir.path("file"), with: "is a file, not a store directory")
        // Replicating into another store's primary that diverges: the error names the divergence.
        try dir.succeed("set", dir.path("other"), "person/ada", "name", #""Someone""#)
        try dir.fail("replicate", source, dir.path("other"), with: "diverged")
    }

    @Test func helpShowsExamples() throws {
        let help = try dir.succeed("replicate", "--help").stdout
        #expect(help.contains("kvstore replicate ./store ./replica --follow"))
        #expect(help.contains("--snapshot"))
        #expect(try dir.succeed("promote", "--help").stdout.contains("kvstore promote ./replica"))
    }
}
