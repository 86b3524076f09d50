/// Kinds of damage to an LMDB data file's pages, aimed with a ``DataFileMap`` at a tree of depth
/// ≥ 2 (by default the `records` database), with what a page check must say about each.
///
/// ```swift
/// var map = try DataFileMap(path: path + "/data.mdb")
/// let expected = try PageDamage.cycle.apply(to: &map)
/// try map.save()
/// // the check reports page expected.page of expected.database, saying expected.says
/// ```
public enum PageDamage: String, CaseIterable, Sendable, CustomStringConvertible {
    case branchHeader, branchFlags, leafBounds, nodeOffset, childOutOfRange, cycle, keysSwapped
    case overflowCount, nodeSize, branchKeySize, mainRoot, freeListEntry, freeListTransactionZero

    public var description: String { rawValue }

    /// What a check must report: the damaged page (nil: the tree as a whole), its tree (as the
    /// checker names them: `(main)`, `(free)` or the database's name) and words of the problem.
    public struct Expected: Sendable {
        public let page: Int?
        public let database: String
        public let says: String
    }

    public struct NotFound: Error, CustomStringConvertible {
        public let description: String
    }

    /// Damages `map`'s bytes (save them to damage the file).
    public func apply(to map: inout DataFileMap, database: String = "records") throws -> Expected {
        func find(_ what: String, _ test: (DataFileMap.TreePage) -> Bool) throws -> DataFileMap.TreePage {
            guard let page = map.pages(of: database).first(where: test) else { throw NotFound(description: "no \(what) in \(database)") }
            return page
        }
        func branch() throws -> DataFileMap.TreePage { try find("branch page") { !$0.isLeaf } }
        func leaf() throws -> DataFileMap.TreePage { try find("leaf below the root") { $0.isLeaf && $0.level > 1 } }
        switch self {
        case .branchHeader:
            let page = try branch()
            map.setUInt64(12345, page: page.number, at: 0)
            return Expected(page: page.number, database: database, says: "calls it page 12345")
        case .branchFlags:
            let page = try branch()
            map.setUInt16(0x7F7F, page: page.number, at: 10)
            return Expected(page: page.number, database: database, says: "flags 0x7f7f")
        case .leafBounds:
            let page = try leaf()
            map.setUInt16(0xFFF0, page: page.number, at: 12)
            return Expected(page: page.number, database: database, says: "free-space bounds")
        case .nodeOffset:
            let page = try leaf()
            map.setUInt16(UInt16(map.pageSize - 4), page: page.number, at: 18)
            return Expected(page: page.number, database: database, says: "node 1 is at offset")
        case .childOutOfRange:
            let page = try branch()
            map.setUInt16(0xFFF0, at: map.nodes(page.number)[1] + 2)
            return Expected(page: page.number, database: database, says: "node 1 leads to page")
        case .cycle:
            let page = try branch()
            let node = map.nodes(page.number)[1]
            map.setUInt16(UInt16(page.number & 0xFFFF), at: node)
            map.setUInt16(UInt16(page.number >> 16), at: node + 2)
            return Expected(page: page.number, database: database, says: "already reached")
        case .keysSwapped:
            let page = try leaf()
            let first = map.half(page.number * map.pageSize + 16), second = map.half(page.number * map.pageSize + 18)
            map.setUInt16(second, page: page.number, at: 16)
            map.setUInt16(first, page: page.number, at: 18)
            return Expected(page: page.number, database: database, says: "out of order")
        case .overflowCount:
            let page = try find("leaf with an overflow value") { !$0.overflow.isEmpty }
            map.setUInt16(1, page: page.overflow[0], at: 12)
            map.setUInt16(0, page: page.overflow[0], at: 14)
            return Expected(page: page.number, database: database, says: "fewer than")
        case .nodeSize:
            let page = try leaf()
            map.setUInt16(0x7FFF, at: map.nodes(page.number)[2] + 2)
            return Expected(page: page.number, database: database, says: "past the page's end")
        case .branchKeySize:
            let page = try branch()
            map.setUInt16(0x7FFF, at: map.nodes(page.number)[1] + 6)
            return Expected(page: page.number, database: database, says: "32767-byte key")
        case .mainRoot:
            guard let root = map.roots["(main)"] else { throw NotFound(description: "no main database") }
            map.setUInt16(0x7F7F, page: root, at: 10)
            return Expected(page: root, database: "(main)", says: "flags 0x7f7f")
        case .freeListEntry:
            // The list's first (largest) page number becomes the highest page a tree uses.
            guard let page = map.pages(of: "(free)").first(where: \.isLeaf), let node = map.nodes(page.number).first,
                  let inUse = map.trees.map(\.number).max(), map.word(node + 16) >= 2, Int(map.word(node + 8 + 8 + 16)) < inUse
            else { throw NotFound(description: "no free-list entry to damage") }
            map.setUInt64(UInt64(inUse), at: node + 8 + 8 + 8)
            return Expected(page: nil, database: "(free)", says: "a tree uses it")
        case .freeListTransactionZero:
            // The first entry's key (the transaction that freed its pages) becomes 0.
            guard let page = map.pages(of: "(free)").first(where: \.isLeaf), let node = map.nodes(page.number).first
            else { throw NotFound(description: "no free-list entry to damage") }
            map.setUInt64(0, at: node + 8)
            return Expected(page: page.number, database: "(free)", says: "transaction 0")
        }
    }
}
