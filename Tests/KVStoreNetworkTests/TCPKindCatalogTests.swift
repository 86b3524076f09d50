import Foundation
import KVStore
import KVStoreNetwork
import Testing
import TestSupport

/// The kind catalog over TCP: a replica gets its source's declarations, as it gets its records.
@Suite(.tags(.network), .skippedByTag) struct TCPKindCatalogTests {
    @Test func theCatalogGoesOverTCPAndTheReplicaKeepsItsRules() throws {
        let directory = try TemporaryDirectory()
        let source = try directory.store("source")
        try commitItems(3, into: source)
        var item = try Kind("item", keys: ["n": .int, "name": .string])
        item.schemaVersion = 3
        try source.register(item)
        try commitItems(2, startingAt: 3, into: source)
        let server = try startedServer(source)
        defer { server.stop() }

        let summary = try client(of: server, into: directory.path("replica")).run()

        let replica = try Store(path: directory.path("replica"))
        #expect(summary.applied == 6 && summary.appliedSequence == 6)
        let declared = try #require(try replica.read { try $0.declaredKind(named: "item") })
        #expect(declared.declaredKeys == item.declaredKeys && declared.schemaVersion == 3)
        #expect(try sameRecords(source, replica))
        try replica.promote()
        #expect(throws: KeyValueCodingError.self) { try replica.setValue(1, forKey: "bogus", of: RecordRef("item/0")) }
    }
}
