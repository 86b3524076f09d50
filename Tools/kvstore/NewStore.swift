import Foundation
import KVStore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What a command that may create a store at `path` (`load`, `replay`, `journal apply`,
/// `replicate`) takes back when it fails before committing anything: the store it created, and
/// the directories it made for it — so a failed command leaves the file system as it found it.
///
/// It never removes what the command did not create: nothing when something was at `path` that
/// is not an empty directory (a store, a file, a symbolic link — dangling or not); only a store
/// this process created, with nothing journaled, that no other process has open (another
/// creator racing for the path may have opened it: see `StoreCreation.removeCreated`); and of
/// the directories, only those missing before, and only when empty (`rmdir`).
///
/// ```swift
/// let new = NewStore(at: path)          // before opening the store
/// do { … } catch {
///     if nothingCommitted { new.remove() }   // after releasing the store
///     throw error
/// }
/// ```
struct NewStore {
    let path: String
    /// Whether nothing was at `path`, or a directory without a store: a store opened there is new.
    let isNew: Bool
    /// The directories that did not exist, `path` first, then its parents up to the outermost:
    /// what creating the store makes.
    private let missingDirectories: [String]
    /// Whether a `lock.mdb` was there before (a leftover, which stays).
    private let hadLockFile: Bool

    init(at path: String) {
        self.path = path
        isNew = StoreDirectory.isEmpty(atPath: path)
        missingDirectories = Self.missingDirectories(of: path)
        hadLockFile = Self.exists((path as NSString).appendingPathComponent("lock.mdb"))
    }

    /// Removes a new store made at `path` and the directories made for it (nothing when the store
    /// was not new); with `journaled`, even when it journaled changes (`replay`: its own). Release
    /// the `Store` first.
    func remove(journaled: Bool = false) {
        guard isNew else { return }
        StoreCreation.removeCreated(at: path, keepingLockFile: hadLockFile, journaled: journaled)
        for directory in missingDirectories where rmdir(directory) != 0 { break }
    }

    /// Whether anything (even a dangling symbolic link) is at `path`.
    private static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    /// `path` and its parents that do not exist, innermost first.
    private static func missingDirectories(of path: String) -> [String] {
        var missing: [String] = []
        // The path as given, its parents by cutting at slashes: NSString's path methods expand
        // (and, on Linux, trap on) a leading "~".
        var candidate = Substring(path)
        while !candidate.isEmpty && !exists(String(candidate)) {
            missing.append(String(candidate))
            while candidate.count > 1 && candidate.hasSuffix("/") { candidate.removeLast() }
            guard let slash = candidate.lastIndex(of: "/") else { break }
            candidate = candidate[...slash]
            while candidate.count > 1 && candidate.hasSuffix("/") { candidate.removeLast() }
        }
        return missing
    }
}
