import Foundation
import Testing
import TestSupport

/// A hostile review of `verify` and the crash lines on damaged stores, end to end.
@Suite(.tags(.subprocess), .skippedByTag) struct PageReviewCommandTests {
    /// The older meta page given the newest's transaction id + 2 (same parity): LMDB reads the
    /// snapshot of the highest id from the other page, opening refuses the store as damaged, and
    /// `verify` must list that meta page and exit 1. Before, it exited 2 with the opening's error,
    /// which told the user to run `kvstore verify` — the very command that printed it.
    @Test func verifyListsAMetaPageWhoseTransactionLMDBReadsElsewhere() throws {
        let dir = try TestDirectory()
        let bad = dir.path("bad")
        try PageDamageCommandTests.makeStore(at: bad, in: dir)
        var map = try DataFileMap(path: bad + "/data.mdb")
        let newest = map.metaPage
        map.setUInt64(map.word(newest * map.pageSize + 144) + 2, page: 1 - newest, at: 144)
        try map.save()

        let verify = try dir.kvstore("verify", bad)
        #expect(!verify.signalled && verify.status == 1 && verify.stderr.isEmpty, "\(verify)")
        #expect(verify.lines.first?.hasPrefix("meta page ") == true, "\(verify)")
        for command in [["get", bad, "person/p0100"], ["stat", bad], ["journal", "list", bad]] {
            let result = try KVStoreExecutable.run(command, in: dir)
            PageDamageCommandTests.expectWorkedOrOneLine(result, command[0], store: bad)
        }
    }

    /// A free-page list entry that names a leaf of `records` (damage opening does not see: it
    /// checks only the list's root page). Each `set` then lets LMDB hand the leaf out again and
    /// overwrite it: after 30 of them, `verify` found `records` damaged (a page used twice; with
    /// new records, 11 of 2,001 were silently gone and `dump` exited 0; in a library process
    /// LMDB's assertion in `mdb_page_dirty` aborted it). A write must refuse such a store (it
    /// does: opening for writing checks every page), or leave every record readable.
    @Test func writesOnAFreeListNamingAPageInUseLoseNoRecord() throws {
        let dir = try TestDirectory()
        let bad = dir.path("bad")
        try PageDamageCommandTests.makeStore(at: bad, in: dir)
        var map = try DataFileMap(path: bad + "/data.mdb")
        let leaf = try #require(map.pages(of: "records").first { $0.isLeaf && $0.level > 1 })
        let freeLeaf = try #require(map.pages(of: "(free)").first { $0.isLeaf })
        let node = try #require(map.nodes(freeLeaf.number).first)
        let list = node + 8 + Int(map.half(node + 6))   // the entry's data: a count, then pages
        try #require(map.word(list) >= 1)
        map.setUInt64(1, at: list)
        map.setUInt64(UInt64(leaf.number), at: list + 8)
        try map.save()

        for index in 0..<30 {
            let result = try KVStoreExecutable.run(["set", bad, "person/p\(String(format: "%04d", index * 7))", "name", "\"\(String(repeating: "w", count: 300))\""], in: dir)
            #expect(!result.signalled, "\(result)")
            if result.status != 0 {
                PageDamageCommandTests.expectWorkedOrOneLine(result, "set", store: bad)
                break
            }
        }
        let dump = try KVStoreExecutable.run(["dump", bad], in: dir, output: dir.outputs.appendingPathComponent("dump"))
        let dumped = (try? String(contentsOf: dir.outputs.appendingPathComponent("dump"), encoding: .utf8)) ?? ""
        let records = dumped.split(separator: "\n").count
        let verify = try dir.kvstore("verify", bad)
        #expect(dump.status != 0 || records == 401, "records silently lost after writes on a damaged free-page list: \(records) of 401")
        // The damage stays where it was: no write spread it into `records`.
        #expect(verify.status == 1 && !verify.stdout.contains("database records"), "\(verify)")
    }
}
