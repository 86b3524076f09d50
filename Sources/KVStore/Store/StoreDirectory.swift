import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What is at a store's path, asked before opening it: the one place for "is this directory
/// empty" and "is there a data file", for the library, the network layer and the command line.
package enum StoreDirectory {
    /// Whether `path` may receive a new store: nothing is there (not even a dangling symbolic
    /// link), or a directory (or a link to one) holding no entries but creations' hidden
    /// directories (see ``StoreCreation``) and an empty `lock.mdb`.
    package static func isEmpty(atPath path: String) -> Bool {
        var status = stat()
        if lstat(path, &status) != 0 { return errno == ENOENT }
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR,
              let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return false }
        return names.allSatisfy { name in
            if name.hasPrefix(StoreCreation.prefix) { return true }
            var file = stat()
            return name == "lock.mdb" && lstat((path as NSString).appendingPathComponent(name), &file) == 0
                && file.st_mode & S_IFMT == S_IFREG && file.st_size == 0
        }
    }

    /// Whether `path` is a directory with a store's data file, `data.mdb`, in it (whatever the
    /// file holds: opening checks that).
    package static func hasDataFile(atPath path: String) -> Bool {
        FileManager.default.fileExists(atPath: (path as NSString).appendingPathComponent("data.mdb"))
    }
}
