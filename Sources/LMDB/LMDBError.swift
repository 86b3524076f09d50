import CLMDB
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An error reported by LMDB, carrying its raw result code and the call that failed.
///
/// The code is kept raw (as `GRDB.DatabaseError` keeps SQLite's) so that a new LMDB code never
/// breaks a caller's `switch`; compare against the static constants:
///
/// ```swift
/// do { try environment.write { try $0.put(db, key: k, value: v) } }
/// catch let error as LMDBError where error.code == LMDBError.mapFull.code { … }
/// ```
public struct LMDBError: Error, Sendable, Hashable, CustomStringConvertible {
    /// LMDB's result code (`MDB_*`), or a POSIX `errno`.
    public let code: Int32
    /// The C function that returned it, such as `mdb_put`.
    public let operation: String

    public init(code: Int32, operation: String) {
        self.code = code
        self.operation = operation
    }

    /// LMDB's own text for the code (`mdb_strerror`), which also covers `errno` values.
    public var message: String { String(cString: mdb_strerror(code)) }

    public var description: String { "\(operation): \(message) (\(code))" }

    public static func == (lhs: LMDBError, rhs: LMDBError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public static let notFound = LMDBError(code: MDB_NOTFOUND, operation: "")
    public static let keyExists = LMDBError(code: MDB_KEYEXIST, operation: "")
    public static let mapFull = LMDBError(code: MDB_MAP_FULL, operation: "")
    public static let mapResized = LMDBError(code: MDB_MAP_RESIZED, operation: "")
    public static let readersFull = LMDBError(code: MDB_READERS_FULL, operation: "")
    public static let databasesFull = LMDBError(code: MDB_DBS_FULL, operation: "")
    public static let invalid = LMDBError(code: MDB_INVALID, operation: "")
    public static let corrupted = LMDBError(code: MDB_CORRUPTED, operation: "")
    public static let pageNotFound = LMDBError(code: MDB_PAGE_NOTFOUND, operation: "")
    /// `ESTALE`: the environment's `lock.mdb` or `data.mdb` was removed or replaced while it was
    /// open (``Environment/checkFilesUnchanged()``).
    public static let filesReplaced = LMDBError(code: ESTALE, operation: "")
    public static let badValueSize = LMDBError(code: MDB_BAD_VALSIZE, operation: "")
    public static let versionMismatch = LMDBError(code: MDB_VERSION_MISMATCH, operation: "")

    /// Throws for a non-zero LMDB result code.
    static func check(_ code: Int32, _ operation: @autoclosure () -> String) throws(LMDBError) {
        if code != 0 { throw LMDBError(code: code, operation: operation()) }
    }
}

/// `withUnsafeBytes` for typed throws (the standard library's is `rethrows` and loses the type).
func withBytes<R>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(LMDBError) -> R) throws(LMDBError) -> R {
    let result: Result<R, LMDBError> = bytes.withUnsafeBytes { buffer in
        Result { () throws(LMDBError) in try body(buffer) }
    }
    return try result.get()
}
