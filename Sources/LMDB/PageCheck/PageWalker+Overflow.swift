#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Values too large for a leaf (overflow runs), and the free-page list's entries.
extension PageWalker {
    /// Checks the overflow run at page `first` that holds a `size`-byte value and marks its
    /// pages: LMDB hands out a pointer into the map there and `size` bytes are read from it, so
    /// the run must be in the file and long enough.
    /// - Returns: the problem, or nil.
    func overflowProblem(_ first: UInt64, size: Int, level: Int, tree: inout Tree, rootOnly: Bool) -> String? {
        if let problem = unreachable(first) { return "a value's overflow page \(first) \(problem)" }
        if rootOnly { return nil }
        let buffer = buffer(level + 1)
        guard pages.read(first, into: buffer) else { return "a value's overflow page \(first) cannot be read" }
        let header = UnsafeRawBufferPointer(buffer)
        report.pagesChecked += 1
        if header.u64(0) != first { return "a value's overflow page \(first) calls itself page \(header.u64(0))" }
        if header.u16(10) != PageLayout.PageFlag.overflow {
            return "a value's overflow page \(first) has flags 0x\(String(header.u16(10), radix: 16)), not an overflow page's"
        }
        let count = UInt64(header.u32(12))
        let needed = UInt64(PageLayout.overflowPages(for: size, pageSize: pages.pageSize))
        if count < needed { return "a \(size)-byte value's overflow run at page \(first) has \(count) pages, fewer than the \(needed) it needs" }
        if count - 1 > lastPage - first || first + count > pages.pagesInFile {
            return "the overflow run at page \(first) has \(count) pages, past the file's end"
        }
        for page in first ..< first + count where isReached(page) {
            return "the overflow run at page \(first) covers page \(page), which was already reached from another page"
        }
        for page in first ..< first + count { mark(page) }
        tree.overflowPages += count
        return nil
    }

    /// Checks one entry of the free-page list: its key the transaction that freed the pages (from
    /// 1, at most the snapshot's), its data a count and that many page numbers in decreasing
    /// order (`MDB_IDL`), each a page of the file. Notes the pages, to check them against the trees.
    ///
    /// A key of 0 is damage no other check sees: `mdb_page_alloc` remembers the last entry it
    /// took by its key and starts again from the first entry when that is 0, so a second page
    /// taken in the same write merges the same pages again and hands one out twice (LMDB's
    /// assertion `mp->mp_pgno != pgno` in `mdb_page_touch`).
    func freeEntryProblem(_ page: UnsafeRawBufferPointer, _ node: Node) -> String? {
        let freedBy = page.u64(node.key.lowerBound)
        if freedBy == 0 { return "it lists pages freed by transaction 0; transactions start at 1" }
        if freedBy > transaction { return "it lists pages freed by transaction \(freedBy), after the snapshot's \(transaction)" }
        let size = Int(node.low)
        if node.flags == PageLayout.NodeFlag.bigData {
            // The run was checked (its pages hold `size` bytes): read the list from it.
            let first = page.u64(node.dataStart)
            var list = [UInt8](repeating: 0, count: size)
            let read = list.withUnsafeMutableBytes { bytes in
                size == 0 || DataFilePages.read(
                    pages.descriptor, into: bytes, at: off_t(first) * off_t(pages.pageSize) + off_t(PageLayout.headerSize))
            }
            guard read else { return "its list of free pages cannot be read" }
            return list.withUnsafeBytes { listProblem($0, freedBy: freedBy) }
        }
        return listProblem(page.bytes(node.dataStart ..< node.dataStart + size), freedBy: freedBy)
    }

    private func listProblem(_ list: UnsafeRawBufferPointer, freedBy: UInt64) -> String? {
        guard list.count >= 8, list.count % 8 == 0 else { return "its list of free pages has \(list.count) bytes" }
        let count = list.u64(0)
        guard count <= UInt64(list.count / 8 - 1) else {
            return "its list of free pages claims \(count) pages in room for \(list.count / 8 - 1)"
        }
        var previous = UInt64.max
        for index in 0 ..< Int(count) {
            let listed = list.u64(8 + 8 * index)
            guard listed >= 2, listed <= lastPage else { return "it lists page \(listed) as free, outside the file's pages 2…\(lastPage)" }
            guard listed < previous else { return "its list of free pages is not in decreasing order at page \(listed)" }
            previous = listed
            listedFree.append((listed, freedBy))
        }
        return nil
    }
}
