/// Walks the trees of one snapshot of a data file — the free-page list, the main database and
/// every named database it lists — checking each page before anything follows it, the way LMDB
/// would read them (see ``PageLayout``). Reads with `pread` only, so that no damage can make it
/// fault; one finding per damaged page, whose subtree is then left alone.
///
/// What it checks: each page's header (its number, a kind fitting its place, `mp_lower` and
/// `mp_upper` within the page), its nodes (offsets inside the page, even and not overlapping,
/// flags a node may have there, key sizes), key order within the page and against the
/// separators above it, child and overflow page numbers (inside the file, never reached twice:
/// no cycle, no page shared), leaves all at one depth, and each tree's counts against its
/// record. With ``PageCheckScope/all`` also the free-page list's entries: sorted page numbers,
/// none listed twice, none in use by a tree.
final class PageWalker {
    let pages: DataFilePages
    let lastPage: UInt64
    let transaction: UInt64
    let scope: PageCheckScope
    var report = PageCheckReport()
    /// One page buffer per tree level (and one more, for overflow headers below a leaf).
    let buffers: UnsafeMutableRawBufferPointer
    /// Pages reached so far, one bit each.
    private var reached: [UInt64]
    /// Pages the free-page list names, with the transaction that freed them.
    var listedFree: [(page: UInt64, freedBy: UInt64)] = []

    static let missingPagesAllowed = UInt64(PageCheckReport.missingPagesAllowed)

    init(pages: DataFilePages, lastPage: UInt64, transaction: UInt64, scope: PageCheckScope) {
        self.pages = pages
        self.lastPage = lastPage
        self.transaction = transaction
        self.scope = scope
        buffers = .allocate(byteCount: pages.pageSize * (PageLayout.maxDepth + 2), alignment: 16)
        reached = Array(repeating: 0, count: Int(lastPage / 64) + 1)
    }

    deinit { buffers.deallocate() }

    func buffer(_ level: Int) -> UnsafeMutableRawBufferPointer {
        let start = min(level, PageLayout.maxDepth + 1) * pages.pageSize
        return UnsafeMutableRawBufferPointer(rebasing: buffers[start ..< start + pages.pageSize])
    }

    /// A tree being walked, and what its pages added up to.
    struct Tree {
        let name: String
        let record: TreeRecord
        var isFreeList: Bool { name == PageCheckReport.freeList }
        var isMain: Bool { name == PageCheckReport.mainDatabase }
        var branchPages: UInt64 = 0
        var leafPages: UInt64 = 0
        var overflowPages: UInt64 = 0
        var entries: UInt64 = 0
        /// The depth of the first leaf met; every other leaf must be there too.
        var leafDepth: Int?
        /// False once a page was left unread (damaged), so that counts say nothing.
        var complete = true
        /// The named databases a main database's leaves list.
        var named: [(name: String, record: TreeRecord)] = []

        init(name: String, record: TreeRecord) {
            self.name = name
            self.record = record
        }
    }

    // MARK: The snapshot

    /// Walks the snapshot whose meta page is `meta` (already checked as a meta page).
    func walk(meta: UnsafeRawBufferPointer, metaPage: UInt64) {
        mark(0)
        mark(1)
        var main = Tree(name: PageCheckReport.mainDatabase, record: TreeRecord(meta, at: PageLayout.Meta.mainTree))
        var free = Tree(name: PageCheckReport.freeList, record: TreeRecord(meta, at: PageLayout.Meta.freeTree))
        let mainProblem = main.record.problem(lastPage: lastPage, allowedFlags: 0)
        let freeProblem = free.record.problem(
            lastPage: lastPage, allowedFlags: PageLayout.TreeFlag.integerKey, requiredFlags: PageLayout.TreeFlag.integerKey)
        if let mainProblem { report.add(page: metaPage, PageCheckReport.metaPages, "the main database: \(mainProblem)") }
        if let freeProblem { report.add(page: metaPage, PageCheckReport.metaPages, "the free-page list: \(freeProblem)") }
        if mainProblem == nil { walkTree(&main, rootOnly: false) }
        if freeProblem == nil { walkTree(&free, rootOnly: scope == .opening) }
        for (name, record) in main.named {
            if let problem = record.problem(lastPage: lastPage, allowedFlags: 0) {
                report.add(page: nil, name, problem)
                continue
            }
            var tree = Tree(name: name, record: record)
            walkTree(&tree, rootOnly: scope == .opening)
        }
        if scope == .all { checkListedFree() }
    }

    /// Walks one tree from its root, then compares what it found with the tree's record.
    func walkTree(_ tree: inout Tree, rootOnly: Bool) {
        let root = tree.record.root
        guard root != PageLayout.noPage else { return }
        if let problem = unreachable(root) {
            report.add(page: nil, tree.name, "its root page \(root) \(problem)")
            return
        }
        if !rootOnly { mark(root) }
        walkPage(root, level: 1, lower: nil, upper: nil, tree: &tree, rootOnly: rootOnly)
        guard !rootOnly, tree.complete else { return }
        let record = tree.record
        if let depth = tree.leafDepth, depth != record.depth {
            report.add(page: nil, tree.name, "its record gives depth \(record.depth), but its leaves are at depth \(depth)")
        }
        let counted = (tree.branchPages, tree.leafPages, tree.overflowPages, tree.entries)
        if counted != (record.branchPages, record.leafPages, record.overflowPages, record.entries) {
            report.add(page: nil, tree.name, "its record counts \(record.entries) entries in \(record.branchPages) branch, \(record.leafPages) leaf and \(record.overflowPages) overflow pages; its pages hold \(tree.entries) in \(tree.branchPages), \(tree.leafPages) and \(tree.overflowPages)")
        }
    }

    // MARK: Pages reached

    /// Why page `number` cannot be followed, or nil: outside the snapshot's pages, missing from
    /// the file, or reached before (a cycle, or a page two parents share).
    func unreachable(_ number: UInt64) -> String? {
        if number < 2 || number > lastPage { return "is outside the file's pages 2…\(lastPage)" }
        if number >= pages.pagesInFile { return "lies past the file's end (\(pages.pagesInFile) pages)" }
        if isReached(number) { return "was already reached from another page (a cycle, or a page used twice)" }
        return nil
    }

    func isReached(_ number: UInt64) -> Bool {
        number <= lastPage && reached[Int(number / 64)] & (1 << (number % 64)) != 0
    }

    func mark(_ number: UInt64) {
        guard number <= lastPage else { return }
        reached[Int(number / 64)] |= 1 << (number % 64)
    }

    // MARK: The free-page list

    /// Checks the pages the free-page list names against each other and the trees: a page listed
    /// twice, or listed while a tree uses it, would be handed out again by the next write.
    private func checkListedFree() {
        var listed = Set<UInt64>()
        for (page, freedBy) in listedFree {
            if !listed.insert(page).inserted {
                report.add(page: nil, PageCheckReport.freeList, "page \(page) is listed as free twice")
                return
            }
            if isReached(page) {
                report.add(page: nil, PageCheckReport.freeList, "page \(page) is listed as freed by transaction \(freedBy), but a tree uses it")
                return
            }
        }
    }
}
