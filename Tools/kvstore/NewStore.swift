import Foundation

/// What a command that may create a store at `path` (`load`, `replay`, `journal apply`) has to
/// take back when it fails before committing anything: the store's files, and the directories it
/// made for them — so a failed command leaves the file system as it found it.
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
    /// Whether nothing was at `path`, or an empty directory: a store opened there is new.
    let isNew: Bool
    /// The outermost of `path` and its parents that did not exist: what creating the store makes.
    let createdDirectory: String?

    init(at path: String) {
        self.path = path
        isNew = StoreAccess.isAbsentOrEmptyDirectory(path)
        createdDirectory = Self.outermostMissingDirectory(of: path)
    }

    /// Removes a new store made at `path` and the directories made for it (nothing when the store
    /// was not new). Release the `Store` first.
    func remove() {
        guard isNew else { return }
        if let createdDirectory {
            try? FileManager.default.removeItem(atPath: createdDirectory)
        } else {
            for file in ["data.mdb", "lock.mdb"] { try? FileManager.default.removeItem(atPath: (path as NSString).appendingPathComponent(file)) }
        }
    }

    /// The outermost of `path` and its parents that does not exist, or nil when `path` exists.
    private static func outermostMissingDirectory(of path: String) -> String? {
        var missing: String?
        // The path as given, its parents by cutting at slashes: NSString's path methods expand
        // (and, on Linux, trap on) a leading "~".
        var candidate = Substring(path)
        while !candidate.isEmpty && !FileManager.default.fileExists(atPath: String(candidate)) {
            missing = String(candidate)
            while candidate.count > 1 && candidate.hasSuffix("/") { candidate.removeLast() }
            guard let slash = candidate.lastIndex(of: "/") else { break }
            candidate = candidate[...slash]
            while candidate.count > 1 && candidate.hasSuffix("/") { candidate.removeLast() }
        }
        return missing
    }
}
