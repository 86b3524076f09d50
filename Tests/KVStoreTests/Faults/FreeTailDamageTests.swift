import Foundation
import Testing
import TestSupport
@testable import KVStore

/// The check that lets a data file lack free pages at its end reads the free-page list itself,
/// before any page check: its numbers come from pages that may be damaged.
@Suite struct FreeTailDamageTests {
    /// A free-list entry in overflow pages whose first page number is 2^63 − 1: adding the run's
    /// length to it trapped (found by page-damage's plain run after 714,847 executions), where
    /// the file must simply not count as lacking only free pages.
    @Test func aHugeOverflowPageNumberInTheFreeListIsNotATrap() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path("data.mdb")
        let pageSize = 4096
        var bytes = [UInt8](repeating: 0, count: 3 * pageSize)
        func put(_ value: UInt64, at offset: Int, size: Int = 8) {
            for byte in 0..<size { bytes[offset + byte] = UInt8(truncatingIfNeeded: value >> (8 * byte)) }
        }
        for meta in 0..<2 {
            let base = meta * pageSize
            put(UInt64(meta + 1), at: base + 144)   // transaction
            put(5, at: base + 136)                  // last page: 3…5 are missing from the file
            put(2, at: base + 80)                   // the free-page list's root
        }
        // Page 2: a leaf with one node whose list of free pages is in overflow pages.
        let leaf = 2 * pageSize, node = 100
        put(2, at: leaf)
        put(0x02, at: leaf + 10, size: 2)           // P_LEAF
        put(18, at: leaf + 12, size: 2)             // one node pointer
        put(UInt64(node), at: leaf + 16, size: 2)
        put(16, at: leaf + node, size: 2)           // data size
        put(0x01, at: leaf + node + 4, size: 2)     // F_BIGDATA
        put(8, at: leaf + node + 6, size: 2)        // key size
        put(1, at: leaf + node + 8)                 // freed by transaction 1
        put(UInt64(Int.max), at: leaf + node + 16)  // the overflow run's first page
        try Data(bytes).write(to: URL(fileURLWithPath: file))

        #expect(StoreFiles.lacksOnlyFreePages(file, pageSize: pageSize) == false)
    }
}
