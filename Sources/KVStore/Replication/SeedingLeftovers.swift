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
package enum SeedingLeftovers {
    /// Removes the unlocked leftovers of reseeds of the replica at `path`.
    package static func remove(beside path: String) {
        let components = PathComponents(path)
        let (parent, name) = (components.parent, components.name)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: parent) else { return }
        for leftover in names where isLeftover(leftover, of: name) {
            let file = (parent as NSString).appendingPathComponent(leftover)
            let descriptor = open(file, O_RDONLY)
            guard descriptor >= 0 else { continue }
            defer { close(descriptor) }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { continue }  // in use
            try? FileManager.default.removeItem(atPath: file)
        }
    }

    /// Runs `body` with a new snapshot file for a reseed of the replica at `path`: beside it (on
    /// its file system, so seeding moves no bytes across devices), owner only, locked while `body`
    /// runs (so another run does not take it for a leftover), removed afterwards.
    /// - Throws: ``StoreError/Code/storage`` when the file cannot be made; what `body` throws.
    package static func withSnapshotFile<T>(beside path: String, _ body: (_ descriptor: Int32, _ file: String) throws -> T) throws -> T {
        let file = PathComponents(path).hiddenSibling(".snapshot-\(UUID().uuidString).mdb")
        let descriptor = open(file, O_RDWR | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else {
            throw StoreError(.storage, "cannot write a snapshot beside the replica: \(String(cString: strerror(errno)))", path: path)
        }
        defer {
            unlink(file)
            close(descriptor)
        }
        flock(descriptor, LOCK_EX)
        return try body(descriptor, file)
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
