import CLMDB

/// A handle to a named database inside an ``Environment``.
///
/// Handles stay valid for the life of the environment and may be shared between threads.
public struct Database: Sendable, Hashable {
    let dbi: MDB_dbi
    /// The database's name.
    public let name: String
}

/// Page and entry counts of one database (`mdb_stat`).
public struct DatabaseStatistics: Sendable, Hashable {
    public var entries: Int
    public var depth: Int
    public var branchPages: Int
    public var leafPages: Int
    public var overflowPages: Int
    public var pageSize: Int

    /// The bytes the database's pages take.
    public var bytes: Int { (branchPages + leafPages + overflowPages) * pageSize }
}
