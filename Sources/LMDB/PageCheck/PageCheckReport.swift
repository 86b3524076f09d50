/// What a check of an environment's pages found (``Environment/read(checkingPages:_:)``,
/// ``PageCheckReport/checkDataFile(atPath:)``): each damaged page, and each tree whose record
/// disagrees with its pages.
///
/// ```swift
/// try environment.read(checkingPages: .all) { txn, pages in
///     pages.findings.forEach { print($0) }   // "page 17 of database records: …"
///     if pages.isClean("records") { /* LMDB may read it */ }
/// }
/// ```
public struct PageCheckReport: Sendable {
    /// The name findings give the meta pages (0 and 1).
    public static let metaPages = "(meta pages)"
    /// The name findings give the main database (the one that lists the named databases).
    public static let mainDatabase = "(main)"
    /// The name findings give LMDB's free-page list.
    public static let freeList = "(free)"

    /// The most pages a meta page may name past the data file's end: a newer LMDB leaves some free
    /// pages unwritten; more means the meta page is damaged.
    public static let missingPagesAllowed = 1 << 16

    /// One damaged page, or one tree whose record is wrong.
    public struct Finding: Sendable, Hashable, CustomStringConvertible {
        /// The damaged page; nil when the finding is about a tree as a whole.
        public let page: UInt64?
        /// The tree: a named database, or ``PageCheckReport/mainDatabase``,
        /// ``PageCheckReport/freeList``, ``PageCheckReport/metaPages``.
        public let database: String
        /// What is wrong, one line.
        public let problem: String

        /// The tree in words: `database records`, `the main database`, `the free-page list`,
        /// `the meta pages`. A database's name is read from a page that may be damaged: its
        /// control characters and line or paragraph separators are written as escapes (`\x0A`,
        /// `\u{2028}`), so that a finding stays one line.
        public var tree: String {
            switch database {
            case PageCheckReport.mainDatabase: "the main database"
            case PageCheckReport.freeList: "the free-page list"
            case PageCheckReport.metaPages: "the meta pages"
            default: "database \(Self.escapingBreaks(database))"
            }
        }

        private static func escapingBreaks(_ name: String) -> String {
            name.escapingScalars { [.control, .lineSeparator, .paragraphSeparator].contains($0.properties.generalCategory) }
        }

        /// `page 17 of database records: …`, `database records: …`, `meta page 1: …`.
        public var description: String {
            if database == PageCheckReport.metaPages, let page { return "meta page \(page): \(problem)" }
            return page.map { "page \($0) of \(tree): \(problem)" } ?? "\(tree): \(problem)"
        }
    }

    /// Every problem found, in the order the walk met them.
    public internal(set) var findings: [Finding] = []
    /// Pages read and checked (overflow runs count once).
    public internal(set) var pagesChecked = 0

    /// True when nothing was found.
    public var isClean: Bool { findings.isEmpty }

    /// Whether the named database `name` can be read safely: neither its pages nor those that lead
    /// to it (the meta pages, the main database) were found damaged.
    public func isClean(_ name: String) -> Bool {
        !findings.contains { [name, Self.mainDatabase, Self.metaPages].contains($0.database) }
    }

    /// The first finding, for a one-line error.
    public var firstFinding: Finding? { findings.first }

    mutating func add(page: UInt64?, _ database: String, _ problem: String) {
        findings.append(Finding(page: page, database: database, problem: problem))
    }
}

/// How much of an environment a page check reads.
public enum PageCheckScope: Sendable {
    /// Every page of every tree, the free-page list included: what `verify` reads.
    case all
    /// What opening a store needs before LMDB follows any page: the meta page, every page of
    /// the main database (a page or a few), and the root page of each other tree.
    case opening
}
