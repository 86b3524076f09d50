#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// LMDB 0.9's on-disk format (`mdb.c` of 0.9.24) as a 64-bit little-endian build writes it:
/// `pgno_t` and `size_t` are 8 bytes, `indx_t` 2, `PAGEBASE` 0.
///
/// A page starts with a 16-byte header (`MDB_page`): `mp_pgno` (8), `mp_pad` (2), `mp_flags` (2),
/// then `mp_lower` and `mp_upper` (2 each), or for an overflow run `mp_pages` (4). Branch and
/// leaf pages continue with `mp_ptrs`, one 2-byte offset per node from `mp_lower` down to the
/// header, and hold their nodes between `mp_upper` and the page's end. A node (`MDB_node`) has an
/// 8-byte header — `mn_lo`, `mn_hi`, `mn_flags`, `mn_ksize` — then its key, then on a leaf its
/// data: `mn_lo | mn_hi << 16` bytes, or with `F_BIGDATA` the 8-byte number of the overflow page
/// holding them. On a branch, `mn_lo | mn_hi << 16 | mn_flags << 32` is the child's page number.
/// Pages 0 and 1 are the meta pages (`MDB_meta` after the header); a tree's record (`MDB_db`, 48
/// bytes) is in the meta for the free list and the main database, and in the main database's
/// leaves (`F_SUBDATA` nodes) for named databases.
enum PageLayout {
    static let headerSize = 16            // PAGEHDRSZ
    static let nodeHeaderSize = 8         // NODESIZE
    static let treeRecordSize = 48        // sizeof(MDB_db)
    static let magic: UInt32 = 0xBEEF_C0DE
    static let version: UInt32 = 1        // MDB_DATA_VERSION
    static let noPage = UInt64.max        // P_INVALID: an empty tree's root
    static let maxKeySize = 511           // MDB_MAXKEYSIZE
    static let maxDepth = 32              // CURSOR_STACK: deeper trees cannot be read
    /// Page sizes LMDB 0.9 accepts (`MAX_PAGESIZE` is 0x8000 without `MDB_DEVEL`).
    static let pageSizes = 512 ... 0x8000

    /// `mp_flags`.
    enum PageFlag {
        static let branch: UInt16 = 0x01
        static let leaf: UInt16 = 0x02
        static let overflow: UInt16 = 0x04
        static let meta: UInt16 = 0x08
    }

    /// `mn_flags` of leaf nodes.
    enum NodeFlag {
        static let bigData: UInt16 = 0x01
        static let subData: UInt16 = 0x02
        static let dupData: UInt16 = 0x04
    }

    /// `md_flags` (`mdb_dbi_open`'s persistent flags).
    enum TreeFlag {
        static let integerKey: UInt16 = 0x08
        /// Every flag that changes how a tree is read: `MDB_REVERSEKEY`, `MDB_DUPSORT`,
        /// `MDB_INTEGERKEY`, `MDB_DUPFIXED`, `MDB_INTEGERDUP`, `MDB_REVERSEDUP`.
        static let meaningful: UInt16 = 0x7E
    }

    /// Offsets in a meta page (the header, then `MDB_meta`).
    enum Meta {
        static let magic = 16
        static let version = 20
        static let freeTree = 40              // mm_dbs[FREE_DBI]; its md_pad is mm_psize
        static let mainTree = 88              // mm_dbs[MAIN_DBI]
        static let lastPage = 136             // mm_last_pg
        static let transaction = 144          // mm_txnid
        static let end = 152
    }

    /// The pages an overflow run needs for `size` bytes (`OVPAGES`).
    static func overflowPages(for size: Int, pageSize: Int) -> Int {
        (headerSize - 1 + size) / pageSize + 1
    }
}

/// Little-endian reads from a page's bytes that never leave them: an offset out of range reads 0
/// (callers check ranges first; this keeps a mistake from reading outside the buffer).
extension UnsafeRawBufferPointer {
    func u16(_ offset: Int) -> UInt16 {
        guard offset >= 0, offset <= count - 2 else { return 0 }
        return UInt16(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }

    func u32(_ offset: Int) -> UInt32 {
        guard offset >= 0, offset <= count - 4 else { return 0 }
        return UInt32(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    func u64(_ offset: Int) -> UInt64 {
        guard offset >= 0, offset <= count - 8 else { return 0 }
        return UInt64(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// The bytes `range` of the buffer (empty when out of range).
    func bytes(_ range: Range<Int>) -> UnsafeRawBufferPointer {
        guard range.lowerBound >= 0, range.upperBound <= count else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(rebasing: self[range])
    }
}

/// A tree's record (`MDB_db`).
struct TreeRecord {
    var flags: UInt16
    var depth: Int
    var branchPages: UInt64
    var leafPages: UInt64
    var overflowPages: UInt64
    var entries: UInt64
    var root: UInt64

    init(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
        flags = bytes.u16(offset + 4)
        depth = Int(bytes.u16(offset + 6))
        branchPages = bytes.u64(offset + 8)
        leafPages = bytes.u64(offset + 16)
        overflowPages = bytes.u64(offset + 24)
        entries = bytes.u64(offset + 32)
        root = bytes.u64(offset + 40)
    }

    /// What is wrong with the record itself, for a file whose last page is `lastPage`; nil when
    /// nothing. `allowedFlags`: the meaningful flags the tree may have.
    func problem(lastPage: UInt64, allowedFlags: UInt16, requiredFlags: UInt16 = 0) -> String? {
        let meaningful = flags & PageLayout.TreeFlag.meaningful
        if meaningful & ~allowedFlags != 0 || meaningful & requiredFlags != requiredFlags {
            return "its record has flags 0x\(String(flags, radix: 16)), which this library never gives it"
        }
        if root == PageLayout.noPage {
            if depth != 0 || entries != 0 || branchPages != 0 || leafPages != 0 || overflowPages != 0 {
                return "its record says it is empty (no root page) but gives depth \(depth) and \(entries) entries"
            }
            return nil
        }
        if root < 2 || root > lastPage { return "its root page \(root) is outside the file's pages 2…\(lastPage)" }
        if depth < 1 || depth > PageLayout.maxDepth { return "its record gives depth \(depth), not 1…\(PageLayout.maxDepth)" }
        return nil
    }
}

/// A data file's pages, read with `pread` (never through a map: a page past the file's end is
/// an error here, where a map would fault).
struct DataFilePages {
    let descriptor: Int32
    let pageSize: Int
    /// Whole pages in the file.
    let pagesInFile: UInt64

    init(descriptor: Int32, pageSize: Int) {
        self.descriptor = descriptor
        self.pageSize = pageSize
        var status = stat()
        pagesInFile = fstat(descriptor, &status) == 0 && pageSize > 0 ? UInt64(max(0, status.st_size)) / UInt64(pageSize) : 0
    }

    /// Reads page `number` into `buffer` (`pageSize` bytes).
    /// - Returns: false when the page is not whole in the file.
    func read(_ number: UInt64, into buffer: UnsafeMutableRawBufferPointer) -> Bool {
        guard number < pagesInFile, buffer.count >= pageSize else { return false }
        return Self.read(descriptor, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<pageSize]),
                         at: off_t(number) * off_t(pageSize))
    }

    /// `pread` of the whole buffer at `offset`, retried when interrupted or short.
    static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: off_t) -> Bool {
        var done = 0
        while done < buffer.count {
            let count = pread(descriptor, buffer.baseAddress! + done, buffer.count - done, offset + off_t(done))
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            done += count
        }
        return true
    }
}
