import Foundation
import KVStore
import KVStoreNetwork
import Testing
import TestSupport

/// The `///` examples of KVStoreNetwork's public API, as they are written (with paths and ports
/// of the test's own).
@Suite(.tags(.network), .skippedByTag) struct NetworkDocExampleTests {
    @Test func journalServerAndJournalClient() throws {
        let directory = try TemporaryDirectory()
        let store = try directory.store("source")
        try store.insert(["name": "Ada"], as: RecordRef("person/ada"))

        // JournalServer
        let server = JournalServer(store: store)         // 127.0.0.1, a free port
        try server.start()
        #expect("listening on \(server.host):\(server.port)".hasPrefix("listening on 127.0.0.1:"))

        // JournalClient
        let client = JournalClient(host: "127.0.0.1", port: server.port, replica: directory.path("replica"),
                                   options: JournalClient.Options(follow: true))
        let lags = Failures()
        let ended = DispatchSemaphore(value: 0)
        Thread {                                  // applies, then follows until stopped
            _ = try? client.run { status in lags.add("applied \(status.appliedSequence), lag \(status.lag)") }
            ended.signal()
        }.start()
        try store.setValue("Ada Lovelace", forKey: "name", of: RecordRef("person/ada"))
        #expect(waitUntil { lags.all.contains("applied 2, lag 0") })
        client.stop()
        #expect(ended.wait(timeout: .now() + 60) == .success)
        server.stop()
        #expect(try sameRecords(store, Store(path: directory.path("replica"))))
    }

    @Test func configuration() {
        var configuration = JournalServer.Configuration()
        configuration.port = 7070
        configuration.maxConnections = 4
        #expect(configuration.host == "127.0.0.1" && configuration.highWaterMark == 1 << 20)
    }

    @Test func replicationConnectionError() throws {
        let directory = try TemporaryDirectory()
        let server = try startedServer(try directory.store("source"))
        server.stop()   // nothing listens on its port now
        let client = JournalClient(host: "127.0.0.1", port: server.port, replica: directory.path("replica"))
        var printed = ""
        var transient = false
        do { try client.run() } catch let error as ReplicationConnectionError {
            printed = "\(error)"             // tcp://127.0.0.1:7070: cannot connect: Connection refused
            if error.isTransient { transient = true }
        }
        #expect(printed == "tcp://127.0.0.1:\(server.port): cannot connect: Connection refused" && transient)
    }
}
