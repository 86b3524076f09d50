import LMDB
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether the pages a data file lacks at its end are all free, read from the file itself.
///
/// A data file may validly end before its last page: newer LMDB releases than 0.9.24 (which still
/// writes them) drop from the commit the pages it allocated and freed again ("loose" pages) when
/// there is no free list to return them to, yet count them in the meta page's last page; their
/// own `mdb_env_copyfd` clamps its copy to the file size for that reason. Such pages are listed in the free database and never read, so a file lacking
/// only free pages is whole. The free database is read with `pread`, not through LMDB's map, so
/// that a free-database page itself missing is a refusal, never a `SIGBUS`.
///
/// ```swift
/// let whole = StoreFiles.lacksOnlyFreePages(path + "/data.mdb", pageSize: 4096)
/// ```
extension StoreFiles {
    /// Whether every page from the file's end to the newest meta page's last page is free.
    /// Call inside a read transaction, so that no writer reuses the pages read meanwhile.
    static func lacksOnlyFreePages(_ file: String, pageSize: Int) -> Bool {
        let descriptor = open(file, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let reader = PageReader(descriptor: descriptor, pageSize: pageSize)
        // The newest of the two meta pages, read before the size: pages it names were written first.
        guard let first = reader.page(0), let second = reader.page(1) else { return false }
        let meta = first.word(at: 144) >= second.word(at: 144) ? first : second
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return false }
        let present = Int(status.st_size) / pageSize
        let lastPage = Int(clamping: meta.word(at: 136))
        guard present <= lastPage else { return true }
        var free = Set<Int>()
        let freeRoot = meta.word(at: 80)
        guard freeRoot == UInt64.max || reader.collectFree(page: Int(clamping: freeRoot), present: present, into: &free, depth: 0) else {
            return false
        }
        return (present...lastPage).allSatisfy { free.contains($0) }
    }
}

/// Reads LMDB pages of a data file (64-bit layout: a 16-byte page header, 8-byte node headers).
private struct PageReader {
    let descriptor: Int32
    let pageSize: Int

    func bytes(at offset: Int, count: Int) -> [UInt8]? {
        guard count >= 0, count <= 1 << 30 else { return nil }
        var buffer = [UInt8](repeating: 0, count: count)
        let read = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
        return read == count ? buffer : nil
    }

    func page(_ number: Int) -> [UInt8]? { bytes(at: number * pageSize, count: pageSize) }

    /// Adds the page numbers listed in the free-database subtree at `page`; false when a page of
    /// it lies at or past `present` (missing) or is malformed.
    func collectFree(page number: Int, present: Int, into free: inout Set<Int>, depth: Int) -> Bool {
        guard number >= 2, number < present, depth < 32, let page = page(number) else { return false }
        let flags = page.half(at: 10), lower = Int(page.half(at: 12))
        guard lower >= 16, lower <= pageSize else { return false }
        for index in 0..<(lower - 16) / 2 {
            let node = Int(page.half(at: 16 + 2 * index))
            guard node >= lower, node + 8 <= pageSize else { return false }
            let low = UInt64(page.half(at: node)), high = UInt64(page.half(at: node + 2))
            let nodeFlags = UInt64(page.half(at: node + 4)), keySize = Int(page.half(at: node + 6))
            if flags & 0x01 != 0 {  // P_BRANCH: the child's page number spans lo, hi and flags
                let child = Int(clamping: low | high << 16 | nodeFlags << 32)
                guard collectFree(page: child, present: present, into: &free, depth: depth + 1) else { return false }
                continue
            }
            guard flags & 0x02 != 0 else { return false }  // P_LEAF
            let size = Int(low | high << 16), start = node + 8 + keySize
            let list: [UInt8]
            if nodeFlags & 0x01 != 0 {  // F_BIGDATA: the list is in overflow pages
                guard start + 8 <= pageSize else { return false }
                let first = Int(clamping: page.word(at: start))
                let pages = (16 + size + pageSize - 1) / pageSize
                // `first` comes from a page that may be damaged: compare without adding to it.
                guard first >= 2, first < present, pages <= present - first,
                      let data = bytes(at: first * pageSize + 16, count: size) else {
                    return false
                }
                list = data
            } else {
                guard start + size <= pageSize else { return false }
                list = Array(page[start..<start + size])
            }
            guard list.count >= 8 else { return false }
            let count = Int(clamping: list.word(at: 0))
            guard count <= (list.count - 8) / 8 else { return false }
            for entry in 0..<count { free.insert(Int(clamping: list.word(at: 8 + 8 * entry))) }
        }
        return true
    }
}

extension [UInt8] {
    fileprivate func half(at offset: Int) -> UInt16 { UInt16(self[offset]) | UInt16(self[offset + 1]) << 8 }
    fileprivate func word(at offset: Int) -> UInt64 {
        (0..<8).reduce(0) { $0 | UInt64(self[offset + $1]) << (8 * $1) }
    }
}
