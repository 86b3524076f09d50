import LMDB

/// The check of a store's pages made when it opens, before LMDB follows any of them: the meta
/// page, every page of the main database (it lists the named databases, a page or a few), and
/// the root page of each other tree. LMDB trusts what it reads there: a damaged main root made
/// every command die with `SIGSEGV` or an LMDB assertion instead of saying what is wrong.
extension StoreFiles {
    static func checkPages(of environment: Environment, path: String) throws(StoreError) {
        let report: PageCheckReport
        do {
            report = try environment.read(checkingPages: .opening) { _, pages in pages }
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
