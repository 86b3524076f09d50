import LMDB
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A problem with the store itself: where it is, what format it has, or its storage.
///
/// Errors about records and keys are ``KeyValueCodingError``s; errors in a record reference are
/// ``RecordRefError``s. Every description reads as one line on a terminal.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, for callers that switch on it.
    public enum Code: String, Sendable {
        /// There is nothing at the path, and the store was opened without creating.
        case noStore
        /// The path is a file, not a store directory.
        case notADirectory
        /// The directory holds no kvstore store (no LMDB files, or LMDB files without kvstore metadata).
        case notAStore
        /// The store was written by a newer kvstore whose format this build cannot read.
        case newerFormat
        /// The store was opened read-only, or its files may not be written.
        case readOnly
        /// The store is already open in this process with settings that conflict (read-only, or
        /// another durability): one process shares one LMDB environment per store.
        case alreadyOpen
        /// The process may not read or write the store's files.
        case permissionDenied
        /// A stored record or journal entry does not decode.
        case corrupt
        /// The store's data file has damaged pages (LMDB's own structure: page headers, nodes,
        /// tree links): the store cannot be opened, or a read met them. ``Store/verify(progress:)``
        /// lists them.
        case damaged
        /// `lock.mdb` or `data.mdb` was removed or replaced while the store was open: writing on
        /// would bypass the locking of processes that opened the new file. Close every process
        /// using the store and open it again.
        case filesReplaced
        /// A will-change notification was not balanced by a did-change before the write ended.
        case unbalancedChange
        /// A write was started inside another transaction (read or write) on the same thread.
        case nestedWrite
        /// A local write to a replica: only applied changes from its source may change its
        /// records until it is promoted (``Store/promote()``).
        case replica
        /// Promoting a store that is not a replica.
        case notAReplica
        /// A snapshot to seed a replica from is not a store's data file, or the path to seed
        /// holds something other than a replica of the snapshot's store.
        case badSnapshot
        /// A kind given in ``Store/Options/kinds`` declares rules that the store's records break
        /// (one holds a key the kind would not declare, or a value of another type than declared):
        /// nothing was declared. Open the store without it, bring the records in line, then
        /// register it.
        case kindRefused
        /// The device holding the store is full (or the user's disk quota is used up): the write
        /// that needed more space committed nothing; free space and write again.
        case noSpace
        /// LMDB reported an error.
        case storage
    }

    /// What went wrong.
    public let code: Code
    /// The problem, for a person, without the path (see ``description``).
    public let message: String
    /// The store's directory, when the error concerns it.
    public let path: String?
    /// The LMDB error underneath, if any.
    public let underlying: LMDBError?

    /// An error with `code` and `message` about the store at `path`, caused by `underlying`.
    public init(_ code: Code, _ message: String, path: String? = nil, underlying: LMDBError? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.underlying = underlying
    }

    /// `PATH: message`, or the message alone when no store is concerned.
    public var description: String {
        if let path { return "\(path): \(message)" }
        return message
    }
}

extension StoreError {
    /// The store's error for an LMDB error without a more specific meaning where it happened.
    static func storage(_ error: LMDBError, path: String) -> StoreError {
        // LMDB reports a short write (the device filled up during it) as EIO.
        if error.code == ENOSPC || error.code == EDQUOT || error.code == EIO && StoreFiles.deviceIsFull(path) {
            return StoreError(
                .noSpace, "no space left on the device for the store's files (\(error.message.lowercased()) in \(error.operation)); nothing was written",
                path: path, underlying: error)
        }
        if error.code == LMDBError.filesReplaced.code, let file = error.operation.split(separator: " ").first {
            return StoreError(
                .filesReplaced,
                "\(file) was removed or replaced while the store was open; close every process using the store and open it again",
                path: path, underlying: error)
        }
        // LMDB met a page that is not what its tree says (it checks a few things, not all).
        if error.code == LMDBError.corrupted.code || error.code == LMDBError.pageNotFound.code {
            // The meta pages checked before LMDB opens the file say what is wrong themselves.
            let opening = "mdb_env_open ("
            let detail = error.operation.hasPrefix(opening) ? String(error.operation.dropFirst(opening.count).dropLast()) : "\(error)"
            return StoreError(
                .damaged, "the store's file is damaged (\(detail)); run `kvstore verify \(path)` to list every damaged page",
                path: path, underlying: error)
        }
        return StoreError(.storage, "storage error: \(error)", path: path, underlying: error)
    }
}
