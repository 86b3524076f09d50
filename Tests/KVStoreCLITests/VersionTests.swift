@testable import kvstore
import KVStore
import Testing
import TestSupport

/// `kvstore --version`.
@Suite(.tags(.subprocess), .skippedByTag) struct VersionTests {
    /// The tool prints the package's version: the library's constant, the one place it is written.
    @Test func versionPrintsThePackagesVersion() throws {
        let dir = try TestDirectory()
        let result = try dir.succeed("--version")
        #expect(result.stdout == Store.libraryVersion + "\n")
        let parts = Store.libraryVersion.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3 && parts.allSatisfy { UInt($0) != nil }, "MAJOR.MINOR.PATCH: \(Store.libraryVersion)")
        #expect(try dir.succeed("--help").stdout.contains("--version"))
    }
}
