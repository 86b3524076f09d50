#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One page of a tree: its header, its nodes, its keys, then its children or its leaf data.
extension PageWalker {
    /// A node of a branch or leaf page, its ranges checked to lie inside the page.
    struct Node {
        let flags: UInt16
        let key: Range<Int>
        /// `mn_lo | mn_hi << 16`: a leaf's data size; with `flags`, a branch's child page.
        let low: UInt64
        var child: UInt64 { low | UInt64(flags) << 32 }
        var dataStart: Int { key.upperBound }
    }

    /// Where a page sits in its tree: its level (the root is 1), the separators that bound its
    /// keys (from the pages above it, whose buffers stay put while it is walked), and its parent.
    struct Place {
        let level: Int
        let lower: UnsafeRawBufferPointer?
        let upper: UnsafeRawBufferPointer?
        let parent: UInt64?
    }

    func walkPage(_ number: UInt64, level: Int, lower: UnsafeRawBufferPointer?, upper: UnsafeRawBufferPointer?,
                  tree: inout Tree, rootOnly: Bool, parent: UInt64? = nil) {
        let place = Place(level: level, lower: lower, upper: upper, parent: parent)
        report.pagesChecked += 1
        let buffer = buffer(level)
        guard pages.read(number, into: buffer) else {
            return damaged(number, &tree, "cannot be read from the file")
        }
        let page = UnsafeRawBufferPointer(buffer)
        let nodes: [Node]
        switch parse(page, number: number, tree: tree) {
        case .failure(let problem): return damaged(number, &tree, problem.text)
        case .success(let parsed): nodes = parsed
        }
        let isLeaf = page.u16(10) == PageLayout.PageFlag.leaf
        var bounded = true
        if let problem = orderProblem(page, nodes, isLeaf: isLeaf, tree: tree, place: place) {
            damaged(number, &tree, problem)
            bounded = false   // its children are still walked, without separators to check against
        }
        if isLeaf {
            walkLeaf(page, number: number, nodes, level: level, tree: &tree, rootOnly: rootOnly)
        } else {
            walkBranch(page, number: number, nodes, place: place, bounded: bounded, tree: &tree, rootOnly: rootOnly)
        }
    }

    /// A page's problem, one line.
    struct Problem: Error {
        let text: String
        init(_ text: String) { self.text = text }
    }

    /// The page's nodes once its header and every node lie within the page.
    private func parse(_ page: UnsafeRawBufferPointer, number: UInt64, tree: Tree) -> Result<[Node], Problem> {
        let size = pages.pageSize
        let header = PageLayout.headerSize
        if page.u64(0) != number { return .failure(Problem("its header calls it page \(page.u64(0))")) }
        let flags = page.u16(10)
        guard flags == PageLayout.PageFlag.branch || flags == PageLayout.PageFlag.leaf else {
            return .failure(Problem("its flags 0x\(String(flags, radix: 16)) are not those of a branch or leaf page"))
        }
        let isLeaf = flags == PageLayout.PageFlag.leaf
        let lower = Int(page.u16(12)), upper = Int(page.u16(14))
        guard lower >= header, (lower - header) % 2 == 0, lower <= upper, upper <= size else {
            return .failure(Problem("its free-space bounds \(lower)…\(upper) do not fit a \(size)-byte page"))
        }
        let count = (lower - header) / 2
        let fewest = isLeaf || tree.isFreeList ? 1 : 2
        guard count >= fewest else {
            return .failure(Problem("it holds \(count) \(count == 1 ? "node" : "nodes"); a \(isLeaf ? "leaf" : "branch") holds at least \(fewest)"))
        }
        var nodes: [Node] = []
        nodes.reserveCapacity(count)
        var spans: [Range<Int>] = []
        spans.reserveCapacity(count)
        for index in 0..<count {
            let offset = Int(page.u16(header + 2 * index))
            guard offset >= upper, offset % 2 == 0, offset + PageLayout.nodeHeaderSize <= size else {
                return .failure(Problem("node \(index) is at offset \(offset), outside the page's nodes (\(upper)…\(size))"))
            }
            let nodeFlags = page.u16(offset + 4), keySize = Int(page.u16(offset + 6))
            let low = UInt64(page.u16(offset)) | UInt64(page.u16(offset + 2)) << 16
            let key = offset + PageLayout.nodeHeaderSize ..< offset + PageLayout.nodeHeaderSize + keySize
            if let problem = keySizeProblem(keySize, index: index, isLeaf: isLeaf, tree: tree) { return .failure(problem) }
            var end = key.upperBound
            if isLeaf {
                let allowed: Set<UInt16> = tree.isMain ? [0, PageLayout.NodeFlag.bigData, PageLayout.NodeFlag.subData] : [0, PageLayout.NodeFlag.bigData]
                guard allowed.contains(nodeFlags) else {
                    return .failure(Problem("node \(index) has flags 0x\(String(nodeFlags, radix: 16)), which no node of this database has"))
                }
                end += nodeFlags == PageLayout.NodeFlag.bigData ? 8 : Int(low)
            }
            guard end <= size else {
                return .failure(Problem("node \(index) at offset \(offset) runs to byte \(end), past the page's end (\(size))"))
            }
            nodes.append(Node(flags: nodeFlags, key: key, low: low))
            spans.append(offset ..< end)
        }
        spans.sort { $0.lowerBound < $1.lowerBound }
        for (first, second) in zip(spans, spans.dropFirst()) where first.upperBound > second.lowerBound {
            return .failure(Problem("its nodes at offsets \(first.lowerBound) and \(second.lowerBound) overlap"))
        }
        return .success(nodes)
    }

    private func keySizeProblem(_ size: Int, index: Int, isLeaf: Bool, tree: Tree) -> Problem? {
        // A branch's first key is never read (LMDB leaves it empty).
        if !isLeaf && index == 0 { return size <= PageLayout.maxKeySize ? nil : Problem("node 0 has a \(size)-byte key") }
        if tree.isFreeList && size != 8 { return Problem("node \(index) has a \(size)-byte key, not a transaction id (8 bytes)") }
        if size < 1 || size > PageLayout.maxKeySize {
            return Problem("node \(index) has a \(size)-byte key (keys have 1…\(PageLayout.maxKeySize) bytes)")
        }
        return nil
    }

    /// Keys in strictly increasing order, within the separators that lead to the page.
    private func orderProblem(_ page: UnsafeRawBufferPointer, _ nodes: [Node], isLeaf: Bool, tree: Tree, place: Place) -> String? {
        let first = isLeaf ? 0 : 1
        guard nodes.count > first else { return nil }
        let integer = tree.isFreeList
        for index in first + 1 ..< max(first + 1, nodes.count) {
            if Self.compare(page.bytes(nodes[index - 1].key), page.bytes(nodes[index].key), integer: integer) >= 0 {
                return "its keys \(index - 1) and \(index) are out of order"
            }
        }
        let parent = place.parent.map { " on page \($0)" } ?? ""
        if let lower = place.lower, Self.compare(lower, page.bytes(nodes[first].key), integer: integer) > 0 {
            return "its key \(first) sorts before the separator\(parent) that leads to it"
        }
        if let upper = place.upper, Self.compare(page.bytes(nodes[nodes.count - 1].key), upper, integer: integer) >= 0 {
            return "its last key sorts at or after the next separator\(parent)"
        }
        return nil
    }

    /// LMDB's order: bytewise (`mdb_cmp_memn`: a prefix first), or for the free-page list's
    /// 8-byte transaction ids (`MDB_INTEGERKEY`) numeric.
    static func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer, integer: Bool) -> Int {
        if integer, a.count == 8, b.count == 8 {
            let x = a.u64(0), y = b.u64(0)
            return x < y ? -1 : x > y ? 1 : 0
        }
        let common = min(a.count, b.count)
        if common > 0, let left = a.baseAddress, let right = b.baseAddress {
            let order = memcmp(left, right, common)
            if order != 0 { return Int(order) }
        }
        return a.count < b.count ? -1 : a.count > b.count ? 1 : 0
    }

    /// Records a problem of page `number` (once per page) and leaves its subtree unwalked.
    func damaged(_ number: UInt64, _ tree: inout Tree, _ problem: String) {
        tree.complete = false
        if let last = report.findings.last, last.page == number, last.database == tree.name { return }
        report.add(page: number, tree.name, problem)
    }

    private func walkBranch(_ page: UnsafeRawBufferPointer, number: UInt64, _ nodes: [Node], place: Place, bounded: Bool,
                            tree: inout Tree, rootOnly: Bool) {
        tree.branchPages += 1
        guard place.level < PageLayout.maxDepth else {
            return damaged(number, &tree, "it is a branch page at depth \(place.level); LMDB reads at most \(PageLayout.maxDepth) levels")
        }
        for (index, node) in nodes.enumerated() {
            let child = node.child
            if let problem = unreachable(child) {
                damaged(number, &tree, "node \(index) leads to page \(child), which \(problem)")
                continue
            }
            if rootOnly { continue }
            mark(child)
            let lower = index == 0 ? place.lower : page.bytes(node.key)
            let upper = index == nodes.count - 1 ? place.upper : page.bytes(nodes[index + 1].key)
            walkPage(child, level: place.level + 1, lower: bounded ? lower : nil, upper: bounded ? upper : nil,
                     tree: &tree, rootOnly: false, parent: number)
        }
    }

    private func walkLeaf(_ page: UnsafeRawBufferPointer, number: UInt64, _ nodes: [Node], level: Int,
                          tree: inout Tree, rootOnly: Bool) {
        if let depth = tree.leafDepth, depth != level {
            return damaged(number, &tree, "it is a leaf at depth \(level); the tree's other leaves are at depth \(depth)")
        }
        tree.leafDepth = level
        tree.leafPages += 1
        tree.entries += UInt64(nodes.count)
        for (index, node) in nodes.enumerated() {
            let problem: String?
            if node.flags == PageLayout.NodeFlag.bigData {
                problem = overflowProblem(page.u64(node.dataStart), size: Int(node.low), level: level, tree: &tree, rootOnly: rootOnly)
            } else if node.flags == PageLayout.NodeFlag.subData {
                problem = node.low == UInt64(PageLayout.treeRecordSize) ? nil
                    : "node \(index) is a database record of \(node.low) bytes, not \(PageLayout.treeRecordSize)"
                if problem == nil {
                    tree.named.append((String(decoding: page.bytes(node.key), as: UTF8.self), TreeRecord(page, at: node.dataStart)))
                }
            } else {
                problem = nil
            }
            if let problem { return damaged(number, &tree, problem) }
            if tree.isFreeList && !rootOnly, let problem = freeEntryProblem(page, node) {
                return damaged(number, &tree, "node \(index): \(problem)")
            }
        }
    }
}
