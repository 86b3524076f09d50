import LMDB

/// The check of a store's pages made when it opens, before LMDB follows any of them.
///
/// Opened read-only, the store's meta page, every page of the main database (it lists the
/// named databases, a page or a few) and the root page of each other tree are checked
/// (``PageCheckScope/opening``): LMDB trusts what it reads there, and a damaged main root made
/// every command die with `SIGSEGV` or an LMDB assertion instead of saying what is wrong.
///
/// Opened for writing, every page is checked (``PageCheckScope/all``), because a write acts on
/// damage that a read never follows: LMDB hands out the pages the free-page list names without
/// looking at them, so a list naming a page still in use let the next writes overwrite it, and
/// records vanished with no error (11 of 2,001 after 30 `set`s; in a library process, an
/// assertion in `mdb_page_dirty` aborted it). It reads the whole file once per open, about
/// 1 s per GiB.
extension StoreFiles {
    static func checkPages(of environment: Environment, path: String, forWriting: Bool) throws(StoreError) {
        let report: PageCheckReport
        do {
            report = try environment.read(checkingPages: forWriting ? .all : .opening) { _, pages in pages }
        } catch let error as LMDBError {
            throw StoreError.storage(error, path: path)
        } catch {
            throw StoreError(.storage, "\(error)", path: path)
        }
        if let finding = report.firstFinding { throw StoreError.damaged(finding, path: path) }
    }
}

extension StoreError {
    /// The error for a damaged page found before LMDB read it.
    static func damaged(_ finding: PageCheckReport.Finding, path: String) -> StoreError {
        StoreError(.damaged, "the store's file is damaged (\(finding)); run `kvstore verify \(path)` to list every damaged page", path: path)
    }
}
