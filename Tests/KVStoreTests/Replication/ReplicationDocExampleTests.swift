import Foundation
import Testing
import TestSupport
import KVStore   // not @testable: the examples use the public API only

/// The ```swift examples of the `///` comments of the replicator, the replica role, snapshots and
/// seeded replicas, each run against temporary stores, adapted as little as possible. If an
/// example here stops compiling, fix the doc comment it came from too.
@Suite struct ReplicationDocExampleTests {
    let directory: TemporaryDirectory
    let ref = try! RecordRef("person/ada")

    init() throws { directory = try TemporaryDirectory() }

    private func path(_ name: String) -> String { directory.path(name) }

    @Test func replicator() throws {
        let source = try Store(path: path("orders"))
        try source.insert(["name": "Ada"], as: ref)
        let replicator = Replicator(source: source, replicaPath: path("backup"))
        let status = try replicator.run()          // catches up, then returns
        #expect(status.appliedSequence == 1 && status.lag == 0)

        var options = Replicator.Options()
        options.follow = true                      // keep up with new commits until stopped
        let follower = Replicator(source: source, replicaPath: path("backup"), options: options)
        let ended = DispatchSemaphore(value: 0)
        let lags = Failures()
        Thread { _ = try? follower.run { status in lags.add("lag \(status.lag)") }; ended.signal() }.start()
        try source.setValue("Ada Lovelace", forKey: "name", of: ref)
        #expect(waitUntil { lags.all.contains("lag 0") })
        follower.stop()
        #expect(ended.wait(timeout: .now() + 60) == .success)
    }

    @Test func roleSourcesAndPromote() throws {
        let source = try Store(path: path("source"))
        try source.insert(["name": "Ada"], as: ref)
        try Replicator(source: source, replicaPath: path("replica")).run()
        let replica = try Store(path: path("replica"))
        var described = ""
        switch try replica.read({ try $0.replicationRole() }) {
        case .primary: described = "writable"
        case .replica(let source): described = "a replica of \(source)"
        case .promoted(let source): described = "promoted, was a replica of \(source)"
        }
        #expect(described == "a replica of \(source.id)")
        if let source = try replica.replicaSource { described = "replica of \(source)" }
        for status in try replica.read({ try $0.replicationSources() }) {
            #expect(status.source == source.id && status.appliedSequence == 1 && status.lag == 0)
        }
        #expect(throws: StoreError.self) { try replica.setValue("x", forKey: "note", of: ref) }
        try replica.promote()        // the source is gone: this copy takes over
        try replica.setValue("now writable", forKey: "note", of: ref)
    }

    @Test func snapshotAndSeed() throws {
        let source = try Store(path: path("source"))
        try source.insert(["name": "Ada"], as: ref)
        let fd = open(path("snapshot.mdb"), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        try source.writeSnapshot(to: fd)
        close(fd)
        let replica = try Store.seedReplica(at: path("replica"), fromSnapshot: path("snapshot.mdb"))
        #expect(try replica.read { try $0.replicationSources() } == [
            ReplicationSourceStatus(source: source.id, appliedSequence: 1, sourceLastSequence: 1),
        ])
        #expect(try replica.value(forKey: "name", of: ref) == "Ada")
    }
}
