@testable import kvstore
import Testing
import TestSupport

/// `kvstore --version`.
@Suite(.tags(.subprocess), .skippedByTag) struct VersionTests {
    @Test func versionPrintsTheToolsVersion() throws {
        let dir = try TestDirectory()
        let result = try dir.succeed("--version")
        #expect(result.stdout == KVStoreVersion.current + "\n")
        let parts = KVStoreVersion.current.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3 && parts.allSatisfy { UInt($0) != nil }, "MAJOR.MINOR.PATCH: \(KVStoreVersion.current)")
        #expect(try dir.succeed("--help").stdout.contains("--version"))
    }
}
