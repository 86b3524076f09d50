import Foundation
import Testing
import TestSupport
@testable import LMDB

/// The page checker (`Environment.read(checkingPages:)`, `PageCheckReport.checkDataFile`): clean on
/// every healthy environment, and each kind of damage reported with its page and tree.
@Suite struct PageCheckTests {
    /// An environment with a `records` tree of depth ≥ 2, overflow values, and free pages left by
    /// deletes and rewrites over many commits.
    static func makeEnvironment(at path: String, seed: UInt64 = 1) throws {
        let env = try Environment(path: path, options: .init(mapSize: 16 << 20))
        let db = try env.openDatabase("records")
        let other = try env.openDatabase("journal")
        var random = SeededRandom(seed)
        for batch in 0..<20 {
            try env.write { txn in
                for index in 0..<40 {
                    let key = Array("key-\(String(format: "%05d", Int(random.next() % 5000)))".utf8)
                    let size = index == 0 ? 9000 + Int(random.next() % 9000) : 20 + Int(random.next() % 180)
                    try txn.put(key, [UInt8](repeating: UInt8(batch), count: size), in: db)
                    try txn.put(withUnsafeBytes(of: UInt64(batch * 40 + index).bigEndian, Array.init), Array("entry".utf8), in: other)
                }
                for _ in 0..<10 {
                    let key = Array("key-\(String(format: "%05d", Int(random.next() % 5000)))".utf8)
                    try txn.delete(key, in: db)
                }
            }
        }
    }

    static func check(_ path: String, _ scope: PageCheckScope = .all) throws -> PageCheckReport {
        let env = try Environment(path: path)
        return try env.read(checkingPages: scope) { _, report in report }
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func healthyEnvironmentsAreClean(seed: UInt64) throws {
        let dir = try TemporaryDirectory()
        try Self.makeEnvironment(at: dir.path, seed: seed)
        let map = try DataFileMap(path: dir.path + "/data.mdb")
        #expect(map.pages(of: "records").contains { $0.level == 3 || $0.level == 2 })
        #expect(map.pages(of: "records").contains { !$0.overflow.isEmpty })
        #expect(map.roots["(free)"] != nil)
        let report = try Self.check(dir.path)
        #expect(report.isClean, "\(report.findings)")
        #expect(report.pagesChecked > 20)
        #expect(try Self.check(dir.path, .opening).isClean)
        #expect(try PageCheckReport.checkDataFile(atPath: dir.path + "/data.mdb").isClean)
    }

    @Test func anEmptyEnvironmentIsClean() throws {
        let dir = try TemporaryDirectory()
        _ = try Environment(path: dir.path)
        #expect(try Self.check(dir.path).isClean)
    }

    @Test(arguments: PageDamage.allCases)
    func eachDamageIsReportedWithItsPage(_ damage: PageDamage) throws {
        let dir = try TemporaryDirectory()
        try Self.makeEnvironment(at: dir.path)
        var map = try DataFileMap(path: dir.path + "/data.mdb")
        let expected = try damage.apply(to: &map)
        try map.save()
        for report in [try Self.check(dir.path), try PageCheckReport.checkDataFile(atPath: dir.path + "/data.mdb")] {
            let finding = try #require(report.findings.first, "\(damage): nothing found")
            #expect(finding.page == expected.page.map(UInt64.init), "\(report.findings)")
            #expect(finding.database == expected.database, "\(report.findings)")
            #expect(finding.problem.contains(expected.says), "\(report.findings)")
            #expect(!report.isClean(expected.database))
        }
        if expected.database == "(main)" {
            #expect(try !Self.check(dir.path, .opening).isClean)
        }
    }

    /// Random damage anywhere past the meta pages never makes the checker trap, and whatever it
    /// calls clean, LMDB reads through and writes to.
    @Test func randomDamageNeverTrapsTheChecker() throws {
        let dir = try TemporaryDirectory()
        try Self.makeEnvironment(at: dir.path)
        let original = try DataFileMap(path: dir.path + "/data.mdb")
        var random = SeededRandom(7)
        var found = 0
        for _ in 0..<300 {
            var map = original
            let offset = 2 * map.pageSize + Int(random.next() % UInt64(map.bytes.count - 2 * map.pageSize - 16))
            map.overwrite((0..<16).map { _ in UInt8(truncatingIfNeeded: random.next()) }, at: offset)
            try map.save()
            if try !PageCheckReport.checkDataFile(atPath: map.path).isClean {
                found += 1
                continue
            }
            let env = try Environment(path: dir.path)
            for name in ["records", "journal"] {
                let db = try env.openDatabase(name, create: false)
                try env.read { txn in try txn.scan(db) { key, value in key.count + value.count >= 0 } }
            }
            let db = try env.openDatabase("records", create: false)
            try env.write { txn in try txn.put(Array("key-new".utf8), [UInt8](repeating: 1, count: 5000), in: db) }
        }
        #expect(found > 10)
    }

    /// A database's name is read from the main database's page: damage can put a line break in
    /// it (page-damage's plain run, after 1,255,030 executions: a finding of two lines). A
    /// finding names it with its breaks escaped, and stays one line.
    @Test func aDamagedDatabaseNameStaysOnOneLine() throws {
        let dir = try TemporaryDirectory()
        try Self.makeEnvironment(at: dir.path)
        var map = try DataFileMap(path: dir.path + "/data.mdb")
        let root = try #require(map.roots["(main)"])
        let node = try #require(map.nodes(root).first { map.half($0 + 6) == 7 && Array(map.bytes[$0 + 8 ..< $0 + 15]) == Array("records".utf8) })
        map.overwrite([0x0A], at: node + 8 + 4)                          // "reco\nds"
        map.setUInt64(UInt64(map.bytes.count / map.pageSize + 5), at: node + 8 + 7 + 40)   // its root past the file
        try map.save()
        let finding = try #require(try PageCheckReport.checkDataFile(atPath: dir.path + "/data.mdb").findings.first)
        #expect(finding.database == "reco\nds")
        #expect(finding.description.hasPrefix("database reco\\x0Ads: its root page "), "\(finding)")
        #expect(!finding.description.contains { $0.isNewline })
    }
}
