import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The files a reseed makes beside a replica `NAME` — the snapshot `.NAME.snapshot-<uuid>.mdb` and
/// the store being built `.NAME.seeding-<uuid>` (after the exchange: the old replica, about to
/// be removed) — and what a run killed in the middle leaves of them. Each is locked (`flock`)
/// while a run uses it; the next run removes those no run holds.
///
/// ```swift
/// SeedingLeftovers.remove(beside: "/backup/orders")   // .orders.seeding-…, .orders.snapshot-….mdb
/// ```
enum SeedingLeftovers {
    /// Removes the unlocked leftovers of reseeds of the replica at `path`.
    static func remove(beside path: String) {
        let parent = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: parent.isEmpty ? "." : parent) else { return }
        for leftover in names where isLeftover(leftover, of: name) {
            let file = (parent as NSString).appendingPathComponent(leftover)
            let descriptor = open(file, O_RDONLY)
            guard descriptor >= 0 else { continue }
            defer { close(descriptor) }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { continue }  // in use
            try? FileManager.default.removeItem(atPath: file)
        }
    }

    /// Makes `directory` (owner only) and runs `body` with it locked (when it could be made:
    /// otherwise `body` meets the problem and reports it).
    static func holdingLock<T>(on directory: String, _ body: () throws -> T) throws -> T {
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let descriptor = open(directory, O_RDONLY)
        if descriptor >= 0 { flock(descriptor, LOCK_EX) }
        defer { if descriptor >= 0 { close(descriptor) } }
        return try body()
    }

    /// Whether `file` is named as a reseed of `name` names its snapshot or seeding store.
    private static func isLeftover(_ file: String, of name: String) -> Bool {
        for (prefix, suffix) in [(".\(name).snapshot-", ".mdb"), (".\(name).seeding-", "")] {
            guard file.hasPrefix(prefix), file.hasSuffix(suffix) else { continue }
            var id = file.dropFirst(prefix.count).dropLast(suffix.count)
            if suffix.isEmpty, id.hasSuffix(".old") { id = id.dropLast(4) }
            if UUID(uuidString: String(id)) != nil { return true }
        }
        return false
    }
}
