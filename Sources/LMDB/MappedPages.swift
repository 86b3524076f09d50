#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Lets a long scan in a read transaction give back the map's pages it has passed, so the
/// process's resident memory stays constant however much of the store it reads.
///
/// LMDB returns pointers into its memory map; every page read stays resident in the process
/// (it counts in its RSS) until the kernel needs the memory. A scan notes the values it reads
/// with ``note(_:)``; ``release()`` then tells the kernel (`madvise(MADV_DONTNEED)`) that the
/// process no longer needs the pages between the lowest and highest address noted. They stay in
/// the page cache: reading them again is a minor fault, with the same bytes (the map is a shared
/// read-only mapping of the file; LMDB writes through the file, not the map).
///
/// Only for values read in a **read-only** transaction: a write transaction's values may point
/// into its own dirty pages, outside the map. Both ends of the range lie in the one mapping, so
/// everything between them does too.
///
/// ```swift
/// var pages = MappedPages()
/// try txn.scan(db) { key, value in
///     pages.note(value)
///     if pages.notedCount >= 4096 { pages.release() }
///     return true
/// }
/// ```
public struct MappedPages {
    private var low = UInt.max
    private var high: UInt = 0
    /// Values noted since the last release.
    public private(set) var notedCount = 0

    public init() {}

    /// Notes a buffer read from the map in a read-only transaction.
    public mutating func note(_ buffer: UnsafeRawBufferPointer) {
        guard let base = buffer.baseAddress else { return }
        let start = UInt(bitPattern: base)
        low = min(low, start)
        high = max(high, start + UInt(buffer.count))
        notedCount += 1
    }

    /// Releases the pages spanned by the buffers noted since the last release.
    public mutating func release() {
        defer {
            low = .max
            high = 0
            notedCount = 0
        }
        #if os(Linux)
        guard low < high else { return }
        let pageSize = UInt(sysconf(Int32(_SC_PAGESIZE)))
        let start = low & ~(pageSize - 1)
        let end = (high + pageSize - 1) & ~(pageSize - 1)
        _ = madvise(UnsafeMutableRawPointer(bitPattern: start), Int(end - start), MADV_DONTNEED)
        #endif
    }
}
