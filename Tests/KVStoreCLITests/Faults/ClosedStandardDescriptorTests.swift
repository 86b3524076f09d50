import Foundation
import Testing

/// A tool started with standard output or error closed (`kvstore promote R >&-`): the files it
/// opens take the lowest free descriptors, so LMDB's lock file became descriptor 1 and the
/// command's output was written into it (`lock.mdb` grew by the 66 bytes of the JSON line, which
/// changes the reader table another process derives from its size), while the command reported
/// success. The descriptors now stay taken, and a write to them fails as on a closed one.
@Suite struct ClosedStandardDescriptorTests {
    /// Runs `kvstore promote` on a fresh replica with the shell redirections `closing`.
    private func promote(closing: String) throws -> (result: CommandResult, lockBefore: Int, lockAfter: Int, dir: TestDirectory) {
        let dir = try TestDirectory()
        let source = dir.path("source"), replica = dir.path("replica")
        try dir.succeed("set", source, "person/ada", "name", #""Ada""#)
        try dir.succeed("replicate", source, replica)
        let lock = replica + "/lock.mdb"
        let before = try #require(try FileManager.default.attributesOfItem(atPath: lock)[.size] as? Int)
        let result = try KVStoreExecutable.run(
            ["promote", replica], in: dir, launcher: ["/bin/sh", "-c", #"exec "$0" "$@" "# + closing])
        let after = try #require(try FileManager.default.attributesOfItem(atPath: lock)[.size] as? Int)
        return (result, before, after, dir)
    }

    @Test func outputToAClosedStandardOutputFailsAndLeavesTheStoreAlone() throws {
        let (result, before, after, _) = try promote(closing: ">&-")
        #expect(after == before, "the command's output went into lock.mdb")
        #expect(result.status == 1 && !result.signalled, "\(result)")
        #expect(result.stderr == "kvstore: cannot write to standard output: Bad file descriptor\n", "\(result)")
    }

    @Test func bothClosedLeaveTheStoreHealthy() throws {
        let (result, before, after, dir) = try promote(closing: ">&- 2>&-")
        #expect(after == before, "the command's output went into lock.mdb")
        #expect(result.status == 1 && !result.signalled, "\(result)")
        let verify = try dir.kvstore("verify", dir.path("replica"))
        #expect(verify.status == 0, "\(verify)")
    }
}
