import Foundation
import Testing
import TestSupport
@testable import LMDB

/// Read-only cursors give the map's pages they passed back to the kernel, so a scan's resident
/// memory stays flat; measured as the resident size of this process's mapping of `data.mdb`.
@Suite(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/smaps")))
struct MappedPagesTests {
    /// The resident KiB of this process's mapping of the `data.mdb` in `directory`.
    private func residentKiB(ofMapIn directory: String) throws -> Int {
        // /proc files report size 0: read to the end rather than by size.
        let handle = try #require(FileHandle(forReadingAtPath: "/proc/self/smaps"))
        defer { try? handle.close() }
        let smaps = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        var inMapping = false
        for line in smaps.split(separator: "\n") {
            if let first = line.first, first.isHexDigit, line.contains(" ") {   // a mapping's header line
                inMapping = line.hasSuffix(directory + "/data.mdb")
            } else if inMapping, line.hasPrefix("Rss:") {
                return Int(line.split(separator: " ")[1]) ?? 0
            }
        }
        Issue.record("no mapping of \(directory)/data.mdb")
        return 0
    }

    @Test func aReadOnlyCursorWalkKeepsTheMapsResidentSizeFlat() throws {
        let dir = try TemporaryDirectory()
        let env = try Environment(path: dir.path)
        let db = try env.openDatabase("things")
        let value = [UInt8](repeating: 7, count: 1000)
        let count = 40_000   // ~40 MiB of values
        let keys = (0..<count).map { withUnsafeBytes(of: UInt32($0).bigEndian, Array.init) }
        try env.write { txn in for key in keys { try txn.put(key, value, in: db) } }

        let (walked, afterWalk) = try env.read { txn in
            var walked = 0
            try txn.scan(db) { _, value in
                walked += value.count
                return true
            }
            return (walked, try residentKiB(ofMapIn: dir.path))
        }
        #expect(walked == count * value.count)
        #expect(afterWalk < 12 * 1024, "a 40 MiB walk left \(afterWalk) KiB of the map resident")

        // The same pages read through mdb_get (no cursor) stay resident: the measure is real.
        let afterGets = try env.read { txn in
            for key in keys { _ = try txn.withValue(forKey: key, in: db) { $0?.count } }
            return try residentKiB(ofMapIn: dir.path)
        }
        #expect(afterGets > 30 * 1024, "reading 40 MiB left only \(afterGets) KiB resident")
    }
}
