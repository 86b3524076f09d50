import LMDB

/// The page check that ``Store/verify(progress:)`` makes first, and its use on a store that cannot
/// be opened because its file is damaged.
extension Store {
    /// ``read(_:)-2zm6d`` after checking the pages of the transaction's snapshot (see
    /// `Environment.read(checkingPages:_:)`).
    func read<T>(checkingPages scope: PageCheckScope, _ body: (ReadTransaction, PageCheckReport) throws -> T) throws -> T {
        do {
            return try environment.read(checkingPages: scope) { txn, pages in
                try body(ReadTransaction(store: self, transaction: txn), pages)
            }
        } catch let error as LMDBError {
            throw StoreError.storage(error, path: path)
        }
    }

    /// Checks the pages of the store at `path` without opening it: for a store whose opening
    /// fails with ``StoreError/Code/damaged`` (the pages LMDB reads to open it are damaged).
    /// Only the file's pages are checked; its records and journal are not read. Nothing may write
    /// the store meanwhile (it cannot be opened, so nothing does).
    ///
    /// ```swift
    /// do { _ = try Store(path: path) } catch let error as StoreError where error.code == .damaged {
    ///     let report = try Store.verifyPages(atPath: path)
    ///     report.findings.forEach { print($0) }
    /// }
    /// ```
    /// - Throws: ``StoreError/Code/noStore`` when there is no data file to read.
    public static func verifyPages(atPath path: String) throws(StoreError) -> VerificationReport {
        let pages: PageCheckReport
        do {
            pages = try PageCheckReport.checkDataFile(atPath: path + "/data.mdb")
        } catch {
            throw StoreError(.noStore, "cannot read the store's data file: \(error.message.lowercased())", path: path, underlying: error)
        }
        var report = VerificationReport()
        report.add(pages)
        report.replaySkipped = "the store could not be opened"
        return report
    }
}

extension VerificationReport {
    /// Adds a page check's findings.
    mutating func add(_ pages: PageCheckReport) {
        pagesChecked = pages.pagesChecked
        for finding in pages.findings {
            add(finding.description)
            if !damagedTrees.contains(finding.tree) { damagedTrees.append(finding.tree) }
        }
    }
}
