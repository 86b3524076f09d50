import Foundation
import LMDB
import Testing
import TestSupport
@testable import KVStore

/// A hostile review of the page checks: damage the checks let through.
@Suite struct PageReviewTests {
    /// The meta page that is not the newest given a transaction id above the newest one's, of the
    /// same parity: LMDB takes the highest id (5) as its snapshot and reads it from page 5 & 1,
    /// which names transaction 3. Opening refuses that (`damaged`); `verifyPages(atPath:)`, which
    /// `verify` falls back to, walked the page with the highest id, found nothing, and `verify`
    /// printed the opening's error: "run `kvstore verify PATH`".
    @Test func verifyPagesNamesAMetaPageLMDBReadsForAnotherTransaction() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store")
        try PageDamageTests.makeStore(at: path)
        var map = try DataFileMap(path: path + "/data.mdb")
        let newest = map.metaPage, other = 1 - newest
        let transaction = map.word(newest * map.pageSize + 144)
        map.setUInt64(transaction + 2, page: other, at: 144)
        try map.save()

        let error = #expect(throws: StoreError.self) { _ = try Store(path: path) }
        #expect(error?.code == .damaged, "\(String(describing: error))")
        let report = try Store.verifyPages(atPath: path)
        #expect(!report.isHealthy, "\(report.findings)")
        #expect(report.findings.first?.hasPrefix("meta page ") == true, "\(report.findings)")
    }

    /// A free-page list entry naming a page a tree still uses: LMDB hands listed pages out to
    /// writes without looking at them, so writes overwrote the page and records vanished with
    /// no error (11 of 2,001 after 30 `set`s), or LMDB's assertion in `mdb_page_dirty` aborted
    /// the process. Opening checked only the list's root page. Opening for writing now checks
    /// every page and refuses the store; opening it read-only still reads every record.
    @Test func openingForWritingRefusesAFreeListNamingAPageInUse() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store")
        _ = try PageDamageTests.makeDamagedStore(at: path, .freeListEntry)

        let error = #expect(throws: StoreError.self) { _ = try Store(path: path) }
        #expect(error?.code == .damaged, "\(String(describing: error))")
        #expect(error?.description.contains("the free-page list: page") == true && error?.description.contains("a tree uses it") == true, "\(String(describing: error))")
        var options = Store.Options()
        options.readOnly = true
        let store = try Store(path: path, options: options)
        #expect(try store.read { txn in try txn.count(ofKind: "person") } == 401)
    }

    /// Every kind of damage a full check finds refuses an open for writing, before any write
    /// can act on it; nothing in the file changes.
    @Test(arguments: PageDamage.allCases.filter { $0 != .mainRoot })
    func openingForWritingRefusesEveryDamagedPage(_ damage: PageDamage) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store")
        _ = try PageDamageTests.makeDamagedStore(at: path, damage)
        let before = try Data(contentsOf: URL(fileURLWithPath: path + "/data.mdb"))

        let error = #expect(throws: StoreError.self) { _ = try Store(path: path) }
        #expect(error?.code == .damaged, "\(String(describing: error))")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path + "/data.mdb")) == before)
    }
}
