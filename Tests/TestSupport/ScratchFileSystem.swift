import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A small tmpfs mounted on a fresh directory, for fault tests that need a file system that fills
/// up or turns read-only. Mounting needs root (and a kernel that allows it, which a container may
/// not): tests guard themselves with ``isAvailable`` and say why they skip.
///
/// ```swift
/// @Test(.enabled(if: ScratchFileSystem.isAvailable, Comment(rawValue: ScratchFileSystem.unavailableReason)))
/// func diskFull() throws {
///     let fs = try ScratchFileSystem(size: 4 << 20)   // unmounted when released
///     try fs.fill()                                    // until no byte is left
/// }
/// ```
public final class ScratchFileSystem: @unchecked Sendable {
    /// The mount point.
    public let path: String
    /// The mount point's directory, removed (once unmounted) when this goes away.
    private let mountPoint: TemporaryDirectory
    private var mounted = true

    /// Whether this process can mount a tmpfs (tried once, on a throw-away directory).
    public static let isAvailable: Bool = {
        guard geteuid() == 0 else { return false }
        return (try? ScratchFileSystem(size: 1 << 20)) != nil
    }()

    /// Why the fault tests that need a scratch file system are skipped when it is unavailable.
    public static let unavailableReason =
        "needs root and a kernel that lets it mount a tmpfs (`mount -t tmpfs`): skipped here"

    /// Mounts a tmpfs of `size` bytes on a new temporary directory.
    public init(size: Int) throws {
        mountPoint = try TemporaryDirectory()
        path = mountPoint.path
        guard Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size),mode=0700", "tmpfs", path]) else {
            throw CocoaError(.fileWriteNoPermission)
        }
    }

    deinit { unmount() }

    /// The path of `name` on the file system.
    public func path(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    /// Writes the file `name` until the file system has no byte left (``release(_:)`` gives the
    /// space back). - Returns: its path.
    @discardableResult
    public func fill(named name: String = "filler") -> String {
        let file = path(name)
        let descriptor = open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        precondition(descriptor >= 0, "cannot create \(file)")
        defer { close(descriptor) }
        let chunk = [UInt8](repeating: 0xA5, count: 4096)
        while true {
            let written = chunk.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { break }
        }
        // A last partial page, byte by byte.
        var byte: UInt8 = 0
        while write(descriptor, &byte, 1) == 1 {}
        return file
    }

    /// Gives back the space ``fill(named:)`` took: empties the file, then removes it. Removing alone
    /// frees the blocks only once no descriptor of the file is left, and a process another test
    /// starts meanwhile holds a copy of every descriptor open at its fork until it closes them
    /// before its `exec`: on a loaded machine, long enough for the next write here to find the
    /// device still full. Emptying frees them at once.
    public func release(_ file: String) throws {
        guard truncate(file, 0) == 0 else { throw NSError(domain: NSPOSIXErrorDomain, code: Int(errno)) }
        try FileManager.default.removeItem(atPath: file)
    }

    /// Remounts read-only (`ro: true`) or read-write. - Returns: whether it worked.
    @discardableResult
    public func remount(readOnly: Bool) -> Bool {
        Self.run("/bin/mount", ["-o", readOnly ? "remount,ro" : "remount,rw", path])
    }

    /// Unmounts (lazily, so that a file still open does not keep it) and removes the mount point.
    public func unmount() {
        guard mounted else { return }
        mounted = false
        _ = Self.run("/bin/umount", ["-l", path])
        try? FileManager.default.removeItem(atPath: path)
    }

    private static func run(_ tool: String, _ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: FileManager.default.isExecutableFile(atPath: tool) ? tool : "/usr" + tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
