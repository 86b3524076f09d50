import Foundation
import KVStore
import Testing
import TestSupport

/// Two processes writing one store at once while a third follows its journal.
@Suite(.tags(.subprocess), .skippedByTag) struct TwoProcessWriterTests {
    /// Two `kvstore torture --increment counter/shared` processes each make 40 commits that read
    /// the shared counter and write it back plus one, inside the transaction, while
    /// `journal list --follow` prints the journal. No update is lost (the counter ends at 80),
    /// the journal is contiguous with commit ids increasing and agrees exactly with the records,
    /// and the follower printed every entry once, in order.
    @Test func twoWritersAndAFollower() throws {
        let rig = try CrashRig("two writers")
        let store = rig.path("store")
        _ = try rig.open(store, creating: true)
        let follower = try rig.start(["journal", "list", store, "--follow"])
        let writers = try ["a", "b"].map { run in
            try rig.start(["torture", store, "--run", run, "--commits", "40", "--increment", "counter/shared"])
        }
        for writer in writers { #expect(writer.waitForExit() == 0, "\(writer.stderr)") }
        #expect(try rig.open(store).value(forKey: "n", of: RecordRef("counter/shared")) == .int(80))
        for (run, writer) in zip(["a", "b"], writers) { #expect(try rig.checkTortureRun(run, of: writer, in: store) == 40) }
        try rig.checkStore(store)

        let entries = try rig.open(store).journalEntries()
        #expect(entries.count == 160)  // each commit: its writer's counter and the shared one
        let commits = entries.map(\.commitID)
        #expect(zip(commits, commits.dropFirst()).allSatisfy { $0 <= $1 } && Set(commits).count == 80)
        let shared = entries.filter { $0.ref.id == "shared" }
        #expect(shared.first?.newValue == .dictionary(["n": 1]))
        #expect(shared.dropFirst().map(\.newValue) == (2...80).map { .int(Int64($0)) })

        follower.waitForLines(entries.count)
        #expect(follower.stop() == 0, "\(follower.stderr)")
        let printed = try follower.lines.map { try TypedJSON.dictionary(from: $0)["sequence"]?.intValue ?? -1 }
        #expect(printed == (1...Int64(entries.count)).map { $0 })
    }
}
