import Foundation

/// A map of an LMDB 0.9 data file's trees (64-bit layout), read by the tests themselves to aim
/// damage at chosen pages, and to damage them: independent of the page checker under test.
///
/// ```swift
/// var map = try DataFileMap(path: store + "/data.mdb")
/// let leaf = try #require(map.pages(of: "records").first { $0.isLeaf })
/// map.setUInt16(0xFFFF, page: leaf.number, at: 16)   // node 0's offset: past the page's end
/// try map.save()
/// ```
public struct DataFileMap {
    public let path: String
    public private(set) var bytes: [UInt8]
    public let pageSize: Int

    /// One page of a tree.
    public struct TreePage: Sendable {
        public let number: Int
        public let database: String
        /// 1 for the root.
        public let level: Int
        public let isLeaf: Bool
        /// A branch's child pages, in key order.
        public let children: [Int]
        /// The first pages of a leaf's overflow runs.
        public let overflow: [Int]
    }

    /// Every page of every tree, the main database as `(main)`, the free list as `(free)`.
    public private(set) var trees: [TreePage] = []
    /// Each tree's root page (nil for an empty tree).
    public private(set) var roots: [String: Int] = [:]
    /// The newest meta page (0 or 1).
    public let metaPage: Int

    public init(path: String) throws {
        self.path = path
        bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        pageSize = Int(UInt32(bytes[40]) | UInt32(bytes[41]) << 8 | UInt32(bytes[42]) << 16 | UInt32(bytes[43]) << 24)
        let first = Self.word(bytes, 144), second = Self.word(bytes, pageSize + 144)
        metaPage = second > first ? 1 : 0
        let meta = metaPage * pageSize
        walk(root: Self.word(bytes, meta + 40 + 40), database: "(free)")
        walk(root: Self.word(bytes, meta + 88 + 40), database: "(main)")
        for page in trees where page.database == "(main)" && page.isLeaf {
            for node in nodes(page.number) where flags(node) == 0x02 {
                let keySize = Int(half(node + 6))
                let name = String(decoding: bytes[node + 8 ..< node + 8 + keySize], as: UTF8.self)
                walk(root: Self.word(bytes, node + 8 + keySize + 40), database: name)
            }
        }
    }

    public func pages(of database: String) -> [TreePage] { trees.filter { $0.database == database } }

    /// The byte offsets in the file of page `number`'s nodes, in key order.
    public func nodes(_ number: Int) -> [Int] {
        let base = number * pageSize
        let count = (Int(half(base + 12)) - 16) / 2
        return (0..<max(0, count)).map { base + Int(half(base + 16 + 2 * $0)) }
    }

    private mutating func walk(root: UInt64, database: String) {
        guard root != .max else { return }
        roots[database] = Int(root)
        var queue = [(Int(root), 1)]
        while let (number, level) = queue.popLast() {
            let isLeaf = half(number * pageSize + 10) & 0x02 != 0
            var children: [Int] = [], overflow: [Int] = []
            for node in nodes(number) {
                if isLeaf {
                    if flags(node) & 0x01 != 0 { overflow.append(Int(Self.word(bytes, node + 8 + Int(half(node + 6))))) }
                } else {
                    children.append(Int(UInt64(half(node)) | UInt64(half(node + 2)) << 16 | UInt64(half(node + 4)) << 32))
                }
            }
            trees.append(TreePage(number: number, database: database, level: level, isLeaf: isLeaf, children: children, overflow: overflow))
            queue += children.reversed().map { ($0, level + 1) }
        }
    }

    private func flags(_ node: Int) -> UInt16 { half(node + 4) }
    public func half(_ offset: Int) -> UInt16 { UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8 }
    static func word(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
        (0..<8).reduce(0) { $0 | UInt64(bytes[offset + $1]) << (8 * $1) }
    }
    public func word(_ offset: Int) -> UInt64 { Self.word(bytes, offset) }

    /// Writes a little-endian 16-bit value at `offset` of page `page` (or of the file, when nil).
    public mutating func setUInt16(_ value: UInt16, page: Int? = nil, at offset: Int) {
        let at = (page ?? 0) * pageSize + offset
        bytes[at] = UInt8(value & 0xFF)
        bytes[at + 1] = UInt8(value >> 8)
    }

    /// Writes a little-endian 64-bit value at `offset` of page `page` (or of the file, when nil).
    public mutating func setUInt64(_ value: UInt64, page: Int? = nil, at offset: Int) {
        let at = (page ?? 0) * pageSize + offset
        for index in 0..<8 { bytes[at + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
    }

    /// Overwrites `replacement.count` bytes at file offset `offset`.
    public mutating func overwrite(_ replacement: [UInt8], at offset: Int) {
        bytes.replaceSubrange(offset ..< offset + replacement.count, with: replacement)
    }

    /// Writes the bytes back to the file, in place (the file keeps its inode).
    public func save() throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.write(contentsOf: bytes)
    }
}
