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
}
