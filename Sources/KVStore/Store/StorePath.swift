import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a store's path is when it is a symbolic link. A link to a directory is followed (the
/// store lives in the directory it names). A dangling link (to nothing) is refused: creating the
/// store would have to make the link's target somewhere else, and a command taking back a store
/// it failed to make would remove the link — something the command did not create.
package enum StorePath {
    /// The target of `path` when it is a symbolic link whose target does not exist; nil otherwise.
    package static func danglingTarget(of path: String) -> String? {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK, stat(path, &status) != 0 else { return nil }
        return (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?"
    }

    /// Refuses a path that is a dangling symbolic link, in one line naming its target.
    /// - Throws: ``StoreError/Code/noStore``.
    package static func refuseDanglingLink(_ path: String) throws(StoreError) {
        guard let target = danglingTarget(of: path) else { return }
        throw StoreError(
            .noStore, "is a symbolic link to '\(target)', which does not exist; give a directory (or a link to one) for the store",
            path: path)
    }

    /// `path`, or the directory it names when it is a symbolic link to one: where a store that
    /// replaces what is at `path` goes, so that the link stays.
    static func followingLink(_ path: String) -> String {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK,
              stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else { return path }
        return URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }
}
