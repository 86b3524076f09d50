import Foundation
import Testing
@testable import KVStore

/// Reading the directory entry of a declared index without parsing its key paths again gives what
/// the general decode gives, for matching and for damaged or differing entries.
@Suite struct IndexDirectoryDecodeTests {
    @Test("the declared index's entry, and entries that differ from it", arguments: [false, true])
    func declaredAndGeneralAgree(folded: Bool) throws {
        let declared = try KindIndex(["feed", "read", "published"], folded: folded)
        let key = IndexDirectory.key(kind: "item", index: declared)
        let good = IndexDirectory.value(number: 7, index: declared)
        var variants: [[UInt8]] = [good, IndexDirectory.value(number: 0, index: declared),
                                   IndexDirectory.value(number: IndexPrefixCounts.areaNumber, index: declared),
                                   IndexDirectory.value(number: 7, index: try KindIndex(["feed", "read", "published"], unique: true, folded: folded)),
                                   IndexDirectory.value(number: 7, index: try KindIndex(["feed", "read"], folded: folded)),
                                   IndexDirectory.value(number: 7, index: try KindIndex(["feed", "reed", "published"], folded: folded)),
                                   Array(good.prefix(4)), Array(good.dropLast())]
        for flags: UInt8 in [0, 1, 3, 4, 6] {
            var changed = good
            changed[4] = flags
            variants.append(changed)
        }
        for value in variants {
            let general = IndexDirectory.decode(key: key, value: value)
            let declaredRead = value.withUnsafeBytes { IndexDirectory.decode(key: key, value: $0, declared: declared, kind: "item") }
            #expect(declaredRead == general, "\(value)")
        }
        let built = try #require(good.withUnsafeBytes { IndexDirectory.decode(key: key, value: $0, declared: declared, kind: "item") })
        #expect(built.number == 7 && built.index == declared && built.countsIrregularEntries && built.kind == "item")
    }
}
