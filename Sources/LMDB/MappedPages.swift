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
final class MappedPages {
    /// How many keys and values are noted between two releases.
    static let releaseInterval = 8192

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
        let start = low & ~(pageSize - 1)
        let end = (high + pageSize - 1) & ~(pageSize - 1)
        _ = madvise(UnsafeMutableRawPointer(bitPattern: start), Int(end - start), MADV_DONTNEED)
        #endif
    }
}
