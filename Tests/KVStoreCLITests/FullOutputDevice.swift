import Foundation
import Testing
import TestSupport

extension TestDirectory {
    /// Runs `kvstore arguments…` with standard output on `/dev/full` (every write fails with
    /// ENOSPC, as on a full disk). - Returns: the exit status and what it wrote on standard error.
    func runWritingToAFullDisk(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let errors = path("\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        let errorHandle = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
        let process = Process()
        process.executableURL = KVStoreExecutable.url
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = full
        process.standardError = errorHandle
        try process.run()
        process.waitUntilExit()
        try errorHandle.close()
        return (process.terminationStatus, try String(contentsOfFile: errors, encoding: .utf8))
    }
}

/// Output that cannot be written (a full disk) is an error naming it, never a cut-short file and
/// exit 0.
@Suite(.tags(.subprocess), .skippedByTag, .enabled(if: FileManager.default.fileExists(atPath: "/dev/full")))
struct FullDiskOutputTests {
    @Test(arguments: [
        ["dump", "STORE"], ["dump", "STORE", "--format", "table"], ["get", "STORE", "person/ada"],
        ["journal", "list", "STORE"], ["value", "STORE", "person", "name"], ["stat", "STORE"],
    ])
    func aCommandWhoseOutputCannotBeWrittenFails(arguments: [String]) throws {
        let dir = try TestDirectory()
        let store = dir.path("store")
        try dir.succeed("set", store, "person/ada", "name", #""Ada""#)
        let result = try dir.runWritingToAFullDisk(arguments.map { $0 == "STORE" ? store : $0 })
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr == "kvstore: cannot write to standard output: No space left on device\n")
    }
}

extension FullDiskOutputTests {
    /// Every other command that prints: its output to a full device is an error too (status 2 for
    /// `verify` and `diff`, whose 1 means findings), whatever it did before printing.
    /// Each command, and the status its errors exit with.
    static let printingCommands: [([String], Int32)] = [
        (["render", "STORE", "person/ada", "--text", "[[name]]"], 1), (["verify", "STORE"], 2), (["diff", "STORE", "OTHER"], 2),
        (["journal", "list", "STORE", "--format", "table"], 1),
        (["journal", "consumers", "STORE", "--register", "x"], 1), (["dump", "STORE", "--format", "json"], 1),
        (["replay", "STORE", "--into", "NEW"], 1), (["replicate", "STORE", "NEW"], 1), (["demo", "NEW"], 1),
        (["journal", "truncate", "STORE", "--before", "1"], 1), (["value", "STORE", "person", "@count"], 1),
    ]

    @Test(arguments: printingCommands)
    func everyCommandThatPrintsFailsWhenItsOutputCannotBeWritten(arguments: [String], status: Int32) throws {
        let dir = try TestDirectory()
        let store = dir.path("store")
        try dir.succeed("set", store, "person/ada", "name", #""Ada""#)
        try dir.succeed("set", dir.path("other"), "person/bob", "name", #""Bob""#)
        let places = ["STORE": store, "OTHER": dir.path("other"), "NEW": dir.path("new")]
        let result = try dir.runWritingToAFullDisk(arguments.map { places[$0] ?? $0 })
        #expect(result.status == status, "\(arguments): \(result.stderr)")
        #expect(result.stderr == "kvstore: cannot write to standard output: No space left on device\n", "\(arguments)")
    }

    @Test func anExportToAFullDeviceFails() throws {
        let dir = try TestDirectory()
        let store = dir.path("store")
        try dir.succeed("set", store, "person/ada", "name", #""Ada""#)
        let result = try dir.runWritingToAFullDisk(["journal", "export", store])
        #expect(result.status == 1)
        #expect(result.stderr == "kvstore: writing the stream to standard output failed: No space left on device\n")
    }
}
