import Testing
@testable import LMDB

/// The range a release gives back: the noted range widened by the fault-around margin, whole
/// pages, never outside the map.
struct MappedPagesRangeTests {
    private let page: UInt = 4096
    private let margin = MappedPages.faultAroundMargin
    private let map: Range<UInt> = 0x10_0000_0000 ..< 0x10_4000_0000

    @Test func theNotedRangeWidensByTheMarginOnEachSideInWholePages() {
        let low = map.lowerBound + 0x10_0123
        let high = map.lowerBound + 0x20_0456
        let range = MappedPages.releasedRange(low: low, high: high, map: map, pageSize: page)
        #expect(range == (map.lowerBound + 0x10_0000 - margin) ..< (map.lowerBound + 0x20_1000 + margin))
    }

    @Test func aReleaseNeverReachesOutsideTheMap() {
        let atStart = MappedPages.releasedRange(low: map.lowerBound + 100, high: map.lowerBound + 200, map: map, pageSize: page)
        #expect(atStart == map.lowerBound ..< map.lowerBound + page + margin)
        let atEnd = MappedPages.releasedRange(low: map.upperBound - 200, high: map.upperBound - 100, map: map, pageSize: page)
        #expect(atEnd == map.upperBound - page - margin ..< map.upperBound)
        let whole = MappedPages.releasedRange(low: map.lowerBound, high: map.upperBound, map: map, pageSize: page)
        #expect(whole == map)
    }

    @Test func nothingNotedReleasesNothing() {
        #expect(MappedPages.releasedRange(low: .max, high: 0, map: map, pageSize: page) == nil)
    }

    @Test func aMapNearTheAddressSpaceEndsDoesNotOverflow() {
        let low: Range<UInt> = 0 ..< 0x10_0000
        #expect(MappedPages.releasedRange(low: 10, high: 20, map: low, pageSize: page) == 0 ..< page + margin)
        let high: Range<UInt> = (UInt.max & ~(page - 1)) - 0x10_0000 ..< (UInt.max & ~(page - 1))
        #expect(MappedPages.releasedRange(low: high.upperBound - 20, high: high.upperBound - 10, map: high, pageSize: page)
            == high.upperBound - page - margin ..< high.upperBound)
    }

    @Test func theMappingHoldingAnAddressIsReadFromTheMapsFormat() {
        let maps = Array("""
            55d0c0a00000-55d0c0a21000 r--p 00000000 fd:01 1234 /usr/bin/kvstore
            7f12a4000000-7f12e4000000 r--s 00000000 fd:01 99 /tmp/store/data.mdb
            garbage line
            7ffd5e3e0000-7ffd5e401000 rw-p 00000000 00:00 0 [stack]
            """.utf8)
        #expect(MappedPages.mapping(containing: 0x7f12_a400_0000, inMaps: maps) == 0x7f12_a400_0000 ..< 0x7f12_e400_0000)
        #expect(MappedPages.mapping(containing: 0x7f12_e3ff_ffff, inMaps: maps) == 0x7f12_a400_0000 ..< 0x7f12_e400_0000)
        #expect(MappedPages.mapping(containing: 0x7f12_e400_0000, inMaps: maps) == nil)
        #expect(MappedPages.mapping(containing: 0x1000, inMaps: maps) == nil)
    }

    #if os(Linux)
    @Test func thisProcessesMappingOfABufferContainsIt() throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 8)
        defer { buffer.deallocate() }
        let address = UInt(bitPattern: buffer.baseAddress)
        let mapping = try #require(MappedPages.mapping(containing: address))
        #expect(mapping.contains(address))
    }
    #endif
}
