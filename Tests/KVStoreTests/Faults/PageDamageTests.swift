import Foundation
import LMDB
import Testing
import TestSupport
@testable import KVStore

/// Damaged pages in a store's file: `verify` reports each one (page and database) and reads no
/// tree they are in; a damaged main database (or a tree's root) refuses every opening with one
/// `damaged` error naming the page, instead of LMDB crashing the process.
@Suite struct PageDamageTests {
    /// A store whose `records` and `journal` trees have depth ≥ 2, one value in overflow pages,
    /// and a free-page list (from a second commit), closed when this returns.
    static func makeStore(at path: String) throws {
        let store = try Store(path: path)
        try store.write { txn in
            for index in 0..<400 {
                try txn.insert(["name": .string(String(repeating: "x", count: 100)), "n": .int(Int64(index))],
                               as: ref("person/p\(String(format: "%04d", index))"))
            }
            try txn.insert(["blob": .bytes(Data(repeating: 7, count: 20_000))], as: ref("person/zbig"))
        }
        try store.write { txn in
            for index in 0..<40 { try txn.setValue(.int(-1), forKey: "n", of: ref("person/p\(String(format: "%04d", index * 10))")) }
        }
    }

    /// Makes the store at `path` (``makeStore(at:)``) and damages its data file with `damage`.
    static func makeDamagedStore(at path: String, _ damage: PageDamage) throws -> PageDamage.Expected {
        try makeStore(at: path)
        var map = try DataFileMap(path: path + "/data.mdb")
        let expected = try damage.apply(to: &map)
        try map.save()
        return expected
    }

    @Test(arguments: PageDamage.allCases)
    func verifyReportsEachDamagedPage(_ damage: PageDamage) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store")
        let expected = try Self.makeDamagedStore(at: path, damage)

        let report: VerificationReport
        do {
            report = try StoreAccessForTests.open(path).verify()
        } catch let error as StoreError where error.code == .damaged {
            // Damage on the pages opening reads: the main database, or a tree's root page.
            #expect(error.message.contains("kvstore verify \(path)"), "\(error)")
            report = try Store.verifyPages(atPath: path)
        }
        let finding = try #require(report.findings.first, "\(damage): nothing found")
        if let page = expected.page {
            #expect(finding.hasPrefix("page \(page) of "), "\(report.findings)")
        }
        #expect(finding.contains(expected.says), "\(report.findings)")
        #expect(!report.isHealthy && !report.replayChecked)
        #expect(report.damagedTrees.count == 1, "\(report.damagedTrees)")
        #expect(report.summary.contains("damaged pages in "), "\(report.summary)")
    }

    /// The main database's root damaged: every opening, read-only or not, is one error naming the
    /// page (before the fix LMDB followed it, and the process died).
    @Test func aDamagedMainRootRefusesEveryOpening() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store")
        let expected = try Self.makeDamagedStore(at: path, .mainRoot)
        for readOnly in [true, false] {
            var options = Store.Options()
            options.readOnly = readOnly
            options.createIfMissing = false
            let error = #expect(throws: StoreError.self) { try Store(path: path, options: options) }
            #expect(error?.code == .damaged)
            #expect(error?.description == "\(path): the store's file is damaged (page \(expected.page ?? -1) of the main database: its flags 0x7f7f are not those of a branch or leaf page); run `kvstore verify \(path)` to list every damaged page")
        }
    }

    /// Damaged meta pages that LMDB trusts when it opens the file, found by the fuzzer: a page
    /// size of 0 (LMDB divided by it: `SIGFPE`), a last page far past the file's end (the
    /// store's size check overflowed), a transaction id past `Int.max` (the page check trapped
    /// converting it). Each is one `damaged` error, and verify lists it.
    @Test(arguments: [("page size", 40, 0, "gives page size 0"),
                      ("last page", 136, 1 << 62, "names page 4611686018427387904 as the last"),
                      ("transaction", 144, UInt64.max - 1, "names transaction 18446744073709551614")])
    func aDamagedMetaPageIsOneError(_ field: String, offset: Int, value: UInt64, says: String) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store")
        try Self.makeStore(at: path)
        var map = try DataFileMap(path: path + "/data.mdb")
        if offset == 40 {
            map.overwrite([UInt8](repeating: 0, count: 4), at: offset)
        } else {
            map.setUInt64(value, page: map.metaPage, at: offset)
        }
        try map.save()
        let error = #expect(throws: StoreError.self, "\(field)") { try StoreAccessForTests.open(path) }
        #expect(error?.code == .damaged, "\(String(describing: error))")
        #expect(error?.message.contains(says) == true, "\(String(describing: error))")
        let report = try Store.verifyPages(atPath: path)
        #expect(report.findings.contains { $0.contains(says) }, "\(report.findings)")
    }

    /// A store written, rewritten and emptied in many commits checks clean, page for page.
    @Test func aChurnedStoreHasNoDamagedPages() throws {
        let t = try TemporaryStore()
        for round in 0..<30 {
            try t.store.write { txn in
                for index in 0..<50 {
                    let target = ref("item/\((round * 37 + index * 11) % 300)")
                    let value = Value.string(String(repeating: "v", count: (round * index) % 3000))
                    if try !txn.contains(target) {
                        try txn.insert(["v": value], as: target)
                    } else if index % 7 == 0 {
                        try txn.delete(target)
                    } else {
                        try txn.setValue(value, forKey: "v", of: target)
                    }
                }
            }
        }
        let report = try t.store.verify()
        #expect(report.isHealthy, "\(report.findings.prefix(5))")
        #expect(report.pagesChecked > 10 && report.damagedTrees.isEmpty)
    }

    /// LMDB's own reports of a damaged page are `damaged` errors pointing to verify.
    @Test func lmdbCorruptionCodesAreDamage() {
        for code in [LMDBError.corrupted.code, LMDBError.pageNotFound.code] {
            let error = StoreError.storage(LMDBError(code: code, operation: "mdb_cursor_get(records)"), path: "/s")
            #expect(error.code == .damaged)
            #expect(error.description.hasSuffix("run `kvstore verify /s` to list every damaged page"))
        }
    }
}

/// How the command line opens a store to verify it: read-only, never creating.
enum StoreAccessForTests {
    static func open(_ path: String) throws -> Store {
        var options = Store.Options()
        options.readOnly = true
        options.createIfMissing = false
        return try Store(path: path, options: options)
    }
}
