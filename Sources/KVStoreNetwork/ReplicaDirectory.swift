import Foundation

/// The replica's place on disk, before a store is opened there.
enum ReplicaDirectory {
    /// True when nothing is at `path`, or an empty directory: a replica made there is new.
    static func isAbsentOrEmpty(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return true }
        return isDirectory.boolValue && ((try? FileManager.default.contentsOfDirectory(atPath: path).isEmpty) ?? false)
    }

    /// A hidden file beside `path` (same file system: a snapshot received there is seeded
    /// without crossing devices): `.<last component>.<name>`.
    static func sibling(of path: String, named name: String) -> String {
        let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        let url = URL(fileURLWithPath: trimmed)
        return url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(name)").path
    }
}
