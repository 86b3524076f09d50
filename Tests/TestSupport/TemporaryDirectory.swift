import Foundation

/// A fresh directory of its own for one test's stores and files, under the system's temporary
/// directory, removed with everything in it when the value goes away: keep it in a local of the
/// test (or a fixture the test holds), and it goes when the test ends.
///
/// ```swift
/// let directory = try TemporaryDirectory()
/// let store = try Store(path: directory.path("store"))   // made by the store
/// ```
public final class TemporaryDirectory: Sendable {
    /// The directory's absolute path.
    public let path: String

    /// Makes a new, empty directory.
    public init() throws {
        path = (NSTemporaryDirectory() as NSString).appendingPathComponent("kvstore-tests-" + UUID().uuidString)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// The path of `name` in the directory (nothing is made there).
    public func path(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
