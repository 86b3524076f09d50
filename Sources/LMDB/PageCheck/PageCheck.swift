import CLMDB
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Environment {
    /// How many read transactions a page check begins before it takes a meta page that does not
    /// name its snapshot as damaged (rather than rewritten by two commits since the begin).
    static let pageCheckAttempts = 50

    /// Runs `body` in a read transaction after checking the pages of its snapshot, read from
    /// the data file with `pread` (never through LMDB, so that damage cannot crash the check):
    /// let LMDB read only the trees the report calls clean (``PageCheckReport/isClean(_:)``).
    ///
    /// ```swift
    /// let findings = try environment.read(checkingPages: .all) { _, pages in pages.findings }
    /// ```
    /// The transaction keeps the snapshot's pages from being reused while they are checked, so
    /// other processes may write meanwhile.
    public func read<T>(checkingPages scope: PageCheckScope, _ body: (Transaction, PageCheckReport) throws -> T) throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            var result: [T] = []
            try read { txn in
                guard let report = txn.checkPages(scope, final: attempt >= Self.pageCheckAttempts) else { return }
                result.append(try body(txn, report))
            }
            if let value = result.first { return value }
        }
    }
}

extension Transaction {
    /// Checks the pages of this read transaction's snapshot.
    /// - Returns: nil when the snapshot's meta page no longer names it (two commits rewrote it since
    ///   the transaction began: check again in a new one), unless `final`, when that is reported as
    ///   damage.
    func checkPages(_ scope: PageCheckScope, final: Bool) -> PageCheckReport? {
        let environment = mdb_txn_env(txn)
        var descriptor: mdb_filehandle_t = -1
        var status = MDB_stat()
        mdb_env_stat(environment, &status)
        let pageSize = Int(status.ms_psize)
        var report = PageCheckReport()
        guard mdb_env_get_fd(environment, &descriptor) == 0, PageLayout.pageSizes.contains(pageSize) else {
            report.add(page: nil, PageCheckReport.metaPages, "the environment's page size \(pageSize) is not one LMDB writes")
            return report
        }
        let pages = DataFilePages(descriptor: descriptor, pageSize: pageSize)
        let snapshot = UInt64(UInt(bitPattern: mdb_txn_id(txn)))
        return MetaPages.read(pages) { metas in
            let current = Int(snapshot & 1), other = 1 - current
            if let problem = metas.problems[other] { report.add(page: UInt64(other), PageCheckReport.metaPages, problem) }
            if let problem = metas.problems[current] {
                report.add(page: UInt64(current), PageCheckReport.metaPages, problem)
                return report
            }
            let named = metas.transaction(current)
            if named != snapshot {
                guard final else { return nil }
                report.add(page: UInt64(current), PageCheckReport.metaPages,
                           "it names transaction \(named), but LMDB reads it as the meta page of transaction \(snapshot)")
                return report
            }
            return metas.walk(current, scope: scope, into: report)
        }
    }
}

extension PageCheckReport {
    /// Checks every page of the data file `path` (an LMDB `data.mdb`) without opening it as an
    /// environment: for a store that cannot be opened because its main database is damaged. It
    /// reads the meta page LMDB would: that of the highest transaction id, at page id & 1 (a
    /// meta page with the other parity is a finding). Nothing may write the file meanwhile.
    ///
    /// ```swift
    /// let report = try PageCheckReport.checkDataFile(atPath: "/tmp/store/data.mdb")
    /// ```
    /// - Throws: ``LMDBError`` with the `errno` of a file that cannot be opened.
    public static func checkDataFile(atPath path: String) throws(LMDBError) -> PageCheckReport {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw LMDBError(code: errno, operation: "open(\(path))") }
        defer { close(descriptor) }
        // The page size is in meta page 0; where that is damaged, try the system's.
        var head = [UInt8](repeating: 0, count: PageLayout.Meta.end)
        let recorded = head.withUnsafeMutableBytes { bytes in
            DataFilePages.read(descriptor, into: bytes, at: 0) ? Int(UnsafeRawBufferPointer(bytes).u32(PageLayout.Meta.freeTree)) : 0
        }
        let pageSize = MetaPages.isPageSize(recorded) ? recorded : Int(sysconf(Int32(_SC_PAGESIZE)))
        var report = PageCheckReport()
        return MetaPages.read(DataFilePages(descriptor: descriptor, pageSize: pageSize)) { metas in
            for (number, problem) in metas.problems.enumerated() {
                if let problem { report.add(page: UInt64(number), metaPages, problem) }
            }
            let usable = (0..<2).filter { metas.problems[$0] == nil }
            guard let newest = usable.max(by: { metas.transaction($0) < metas.transaction($1) }) else { return report }
            // LMDB takes the highest transaction id as its snapshot and reads it from page id & 1.
            let snapshot = metas.transaction(newest), read = Int(snapshot & 1)
            guard read != newest else { return metas.walk(newest, scope: .all, into: report) }
            report.add(page: UInt64(read), metaPages, "it names transaction \(metas.transaction(read)), but LMDB reads it as the meta page of transaction \(snapshot) (the one meta page \(newest) names)")
            return metas.problems[read] == nil ? metas.walk(read, scope: .all, into: report) : report
        }
    }
}

/// The two meta pages of a data file, read into one buffer.
struct MetaPages {
    let pages: DataFilePages
    let bytes: UnsafeRawBufferPointer
    /// What is wrong with each page as a meta page LMDB accepts; nil when nothing.
    let problems: [String?]

    /// One id a commit: no store reaches 2^62 (LMDB adds to ids as signed numbers).
    static let maxTransaction: UInt64 = 1 << 62

    static func isPageSize(_ size: Int) -> Bool { PageLayout.pageSizes.contains(size) && size & (size - 1) == 0 }

    /// Reads both meta pages and calls `body` with them.
    static func read<T>(_ pages: DataFilePages, _ body: (MetaPages) -> T) -> T {
        let size = pages.pageSize
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 2 * size, alignment: 16)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        let problems: [String?] = (0..<2).map { number in
            let page = UnsafeMutableRawBufferPointer(rebasing: buffer[number * size ..< (number + 1) * size])
            guard pages.read(UInt64(number), into: page) else { return "it cannot be read from the file" }
            return problem(UnsafeRawBufferPointer(page), number: UInt64(number), pageSize: size)
        }
        return body(MetaPages(pages: pages, bytes: UnsafeRawBufferPointer(buffer), problems: problems))
    }

    private static func problem(_ page: UnsafeRawBufferPointer, number: UInt64, pageSize: Int) -> String? {
        if page.u64(0) != number { return "its header calls it page \(page.u64(0))" }
        if page.u16(10) != PageLayout.PageFlag.meta { return "its flags 0x\(String(page.u16(10), radix: 16)) are not a meta page's" }
        if page.u32(PageLayout.Meta.magic) != PageLayout.magic { return "it lacks LMDB's magic number" }
        if page.u32(PageLayout.Meta.version) != PageLayout.version { return "it gives format version \(page.u32(PageLayout.Meta.version)), not 1" }
        let recorded = Int(page.u32(PageLayout.Meta.freeTree))
        if recorded != pageSize { return "it gives page size \(recorded), not the file's \(pageSize)" }
        let transaction = page.u64(PageLayout.Meta.transaction)
        if transaction >= maxTransaction { return "it names transaction \(transaction), which no store reaches" }
        return nil
    }

    func page(_ number: Int) -> UnsafeRawBufferPointer { bytes.bytes(number * pages.pageSize ..< (number + 1) * pages.pageSize) }

    func transaction(_ number: Int) -> UInt64 { page(number).u64(PageLayout.Meta.transaction) }

    /// Walks the snapshot of meta page `number`, adding to `report`.
    func walk(_ number: Int, scope: PageCheckScope, into report: PageCheckReport) -> PageCheckReport {
        let meta = page(number)
        let lastPage = meta.u64(PageLayout.Meta.lastPage)
        var report = report
        guard lastPage >= 1, lastPage < pages.pagesInFile + PageWalker.missingPagesAllowed else {
            report.add(page: UInt64(number), PageCheckReport.metaPages,
                       "it names page \(lastPage) as the last, but the file has \(pages.pagesInFile) pages")
            return report
        }
        let walker = PageWalker(pages: pages, lastPage: lastPage, transaction: transaction(number), scope: scope)
        walker.report = report
        walker.walk(meta: meta, metaPage: UInt64(number))
        return walker.report
    }
}

extension MetaPages {
    /// Refuses, before `mdb_env_open` reads it, a data file whose meta pages LMDB would trust to
    /// size its map: it takes the page size from the file unchecked and divides by it (a page size
    /// of 0 killed the process with `SIGFPE`), and multiplies it by the newest meta page's last
    /// page. Both meta pages must give the same valid page size (LMDB finds page 1 at page 0's
    /// size), and the newest must not name a last page far past the file's end, nor a
    /// transaction id no store reaches (readers add to it). A file too short
    /// to hold the meta pages, or one without LMDB's magic number, is left to LMDB, which says
    /// what it is.
    /// - Throws: ``LMDBError/corrupted`` naming the meta page.
    static func checkBeforeOpening(dataFile path: String) throws(LMDBError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        var sizes: [UInt32] = [], transactions: [UInt64] = [], lastPages: [UInt64] = []
        for number in 0..<2 {
            var head = [UInt8](repeating: 0, count: PageLayout.Meta.end)
            let complete = head.withUnsafeMutableBytes { bytes in
                DataFilePages.read(descriptor, into: bytes, at: off_t(number) * off_t(sizes.first ?? 0))
            }
            let page = head.withUnsafeBytes { bytes in
                (magic: bytes.u32(PageLayout.Meta.magic), size: bytes.u32(PageLayout.Meta.freeTree),
                 last: bytes.u64(PageLayout.Meta.lastPage), transaction: bytes.u64(PageLayout.Meta.transaction))
            }
            guard complete, page.magic == PageLayout.magic else { return }
            guard isPageSize(Int(page.size)), page.size == sizes.first ?? page.size else {
                let also = number == 1 ? " (meta page 0 gives \(sizes[0]))" : ""
                throw LMDBError(code: LMDBError.corrupted.code, operation: "mdb_env_open (meta page \(number) gives page size \(page.size)\(also))")
            }
            sizes.append(page.size)
            transactions.append(page.transaction)
            lastPages.append(page.last)
        }
        let newest = transactions[1] > transactions[0] ? 1 : 0
        let pages = DataFilePages(descriptor: descriptor, pageSize: Int(sizes[0])).pagesInFile
        if lastPages[newest] >= pages + PageWalker.missingPagesAllowed {
            throw LMDBError(code: LMDBError.corrupted.code,
                            operation: "mdb_env_open (meta page \(newest) names page \(lastPages[newest]) as the last, but the file has \(pages) pages)")
        }
        if transactions[newest] >= maxTransaction {
            throw LMDBError(code: LMDBError.corrupted.code,
                            operation: "mdb_env_open (meta page \(newest) names transaction \(transactions[newest]))")
        }
    }
}
