import Foundation
import Testing
@testable import KVStore
import LMDB

/// `verify` and the kind catalog.
@Suite struct KindCatalogVerificationTests {
    let t: TemporaryStore

    init() throws {
        t = try TemporaryStore()
        try t.store.insert(["name": "Ada"], as: ref("person/ada"))
        try t.store.register(try Kind("person", keys: ["name": .string]))
    }

    private func write(_ body: (LMDB.Transaction) throws -> Void) throws {
        try t.store.environment.write { txn in
            try body(txn)
            try txn.put(StoreLayout.MetaKey.catalogVersion, withUnsafeBytes(of: UUID().uuid, Array.init), in: t.store.databases.meta)
        }
    }

    /// Verify replays the journal, catalog entries included, and compares the catalogs too.
    @Test func aStoreWithACatalogVerifies() throws {
        try t.store.register(try Kind("person", keys: ["name": .string, "age": .int]))
        #expect(try t.store.read { try $0.declaredKind(named: "person")?.declaredKeys?.count } == 2)
        let report = try t.store.verify()
        #expect(report.isHealthy && report.replayChecked, "\(report.findings)")
    }

    @Test func aDamagedDeclarationIsAFinding() throws {
        try write { try $0.put(StoreLayout.MetaKey.catalog("person"), [1, 9], in: t.store.databases.meta) }
        #expect(try t.store.verify().findings.first?.hasPrefix("the catalog's declaration of kind 'person' is damaged: ") == true)
    }

    @Test func aRecordBreakingItsClosedKindIsAFinding() throws {
        try write { try $0.put(StoreLayout.recordKey(ref("person/eve")), RecordCodec.encode(["name": 1, "zz": true]), in: t.store.databases.records) }
        let findings = try t.store.verify().findings
        #expect(findings.contains("record person/eve holds an int at 'name', which kind 'person' declares string"), "\(findings)")
    }

    @Test func aCatalogTheJournalDoesNotMakeIsAFinding() throws {
        try write { try $0.put(StoreLayout.MetaKey.catalog("note"), KindDeclaration(try Kind("note", keys: [:])).encoded, in: t.store.databases.meta) }
        let findings = try t.store.verify().findings
        #expect(findings == [#"the catalog declares kind 'note' as {"format":1,"keys":{}}, but replaying the journal gives no declaration"#])
    }
}
