#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Gives back the map's pages a read-only cursor has passed, so a long scan's resident memory
/// stays constant however much of the store it reads. Every cursor of a read-only transaction
/// has one (see ``Transaction/withCursor(on:_:)``); nothing else needs to call it.
///
/// LMDB returns pointers into its memory map; every page read stays resident in the process
/// (it counts in its RSS) until the kernel needs the memory. The cursor notes the keys and
/// values it reads; every ``releaseInterval`` of them, the pages between the lowest and highest
/// address noted are given back to the kernel (`madvise(MADV_DONTNEED)`). They stay in the page
/// cache: reading them again — through a pointer handed out earlier, or a branch page the cursor
/// still stands on — is a minor fault with the same bytes, because the map is a shared read-only
/// mapping of the file (LMDB writes through the file, not the map, without `MDB_WRITEMAP`).
///
/// Only for read-only transactions: a write transaction's values may point into its own dirty
/// pages, outside the map. Both ends of the range lie in the one mapping, so everything between
/// them does too.
///
/// A fault on the map also maps the neighbouring pages already in the page cache (the kernel's
/// fault-around, 64 KiB by default). Those neighbours may hold other databases' pages (the
/// journal's, interleaved with the records' when records were written in small transactions)
/// that no later range covers, so they would stay resident: 1M records loaded 1,000 per
/// transaction dumped at 70 MiB instead of 41. So each release reaches ``faultAroundMargin``
/// beyond both ends, kept inside the mapping that holds the noted range (looked up in
/// `/proc/self/maps` at the first release, so short scans never pay for it; LMDB does not
/// give its map's address). Where it cannot be found, releases keep to the noted range.
final class MappedPages {
    /// How many keys and values are noted between two releases.
    static let releaseInterval = 8192
    /// How far beyond the noted range a release reaches on each side: the kernel's default
    /// fault-around window (`/sys/kernel/mm/…/fault_around_bytes`, 64 KiB).
    static let faultAroundMargin: UInt = 64 * 1024

    /// The addresses of the mapping that holds the noted buffers, once looked up (nil inside
    /// when it was not found): a release never reaches outside them.
    private var map: Range<UInt>??
    private var low = UInt.max
    private var high: UInt = 0
    private var notedCount = 0

    /// Notes a key and its value read from the map, releasing what was passed every
    /// ``releaseInterval`` entries.
    func note(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) {
        note(key)
        note(value)
        if notedCount >= Self.releaseInterval { release() }
    }

    private func note(_ buffer: UnsafeRawBufferPointer) {
        guard let base = buffer.baseAddress else { return }
        let start = UInt(bitPattern: base)
        low = min(low, start)
        high = max(high, start + UInt(buffer.count))
        notedCount += 1
    }

    /// Releases the pages spanned by the buffers noted since the last release.
    func release() {
        defer {
            low = .max
            high = 0
            notedCount = 0
        }
        #if os(Linux)
        guard low < high else { return }
        let pageSize = UInt(sysconf(Int32(_SC_PAGESIZE)))
        if map == nil { map = .some(Self.mapping(containing: low)) }
        let mask = ~(pageSize - 1)
        let bounds = (map ?? nil) ?? (low & mask) ..< ((high + pageSize - 1) & mask)
        guard let range = Self.releasedRange(low: low, high: high, map: bounds, pageSize: pageSize) else { return }
        _ = madvise(UnsafeMutableRawPointer(bitPattern: range.lowerBound), Int(range.count), MADV_DONTNEED)
        #endif
    }

    /// The page-aligned addresses a release gives back for buffers noted between `low` and
    /// `high`: widened by ``faultAroundMargin`` on each side, then cut to the whole pages inside
    /// `map`. Nil when nothing was noted or nothing is left.
    static func releasedRange(low: UInt, high: UInt, map: Range<UInt>, pageSize: UInt) -> Range<UInt>? {
        guard low < high else { return nil }
        let wideLow = low >= faultAroundMargin ? low - faultAroundMargin : 0
        let wideHigh = high <= UInt.max - faultAroundMargin ? high + faultAroundMargin : UInt.max
        let mask = ~(pageSize - 1)
        // Page-aligned at or above `address`, saturating at the last whole page.
        func roundedUp(_ address: UInt) -> UInt {
            address > UInt.max - (pageSize - 1) ? UInt.max & mask : (address + pageSize - 1) & mask
        }
        // Round inwards at the map's ends (page-aligned anyway), outwards elsewhere.
        let start = max(wideLow & mask, roundedUp(map.lowerBound))
        let end = min(roundedUp(wideHigh), map.upperBound & mask)
        return start < end ? start ..< end : nil
    }

    /// The addresses of this process's mapping that contains `address`, from `/proc/self/maps`
    /// (lines `start-end perms …` in hexadecimal); nil when there is none or the file cannot be read.
    static func mapping(containing address: UInt) -> Range<UInt>? {
        #if os(Linux)
        let descriptor = open("/proc/self/maps", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var text: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            text.append(contentsOf: chunk[..<count])
        }
        return mapping(containing: address, inMaps: text)
        #else
        return nil
        #endif
    }

    /// The range of the line of `maps` (the format of `/proc/self/maps`) that contains `address`.
    static func mapping(containing address: UInt, inMaps maps: [UInt8]) -> Range<UInt>? {
        for line in maps.split(separator: UInt8(ascii: "\n")) {
            guard let space = line.firstIndex(of: UInt8(ascii: " ")),
                  let dash = line[..<space].firstIndex(of: UInt8(ascii: "-")),
                  let start = UInt(String(decoding: line[line.startIndex ..< dash], as: UTF8.self), radix: 16),
                  let end = UInt(String(decoding: line[(dash + 1) ..< space], as: UTF8.self), radix: 16),
                  start < end
            else { continue }
            if start <= address, address < end { return start ..< end }
        }
        return nil
    }
}
