import Foundation
import Testing

/// A store directory its user may enter and write but not list (mode 0300): the check that
/// `data.mdb` and `lock.mdb` are still the files opened looks them up in the directory, held
/// open — and opening it for reading failed there, which silently turned the check off. A writer
/// went on committing into a replaced data file that no other process reads (2,798 commits
/// acknowledged after the replacement, exit 0).
@Suite struct UnreadableDirectoryTests {
    @Test(.enabled(if: FileSystemFaultCommandTests.canRunAsNobody, "needs root and setpriv, to run the tool as nobody"))
    func aReplacedDataFileIsNoticedInADirectoryThatCannotBeListed() throws {
        let dir = try TestDirectory()
        let store = dir.path("store")
        try dir.succeed("set", store, "person/ada", "name", #""Ada""#)
        let manager = FileManager.default
        for path in [store, store + "/data.mdb", store + "/lock.mdb"] {
            try manager.setAttributes([.ownerAccountID: 65534, .groupOwnerAccountID: 65534], ofItemAtPath: path)
        }
        try manager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: dir.url.path)
        try manager.setAttributes([.posixPermissions: 0o300], ofItemAtPath: store)

        let executable = try #require(KVStoreExecutable.url)
        let acknowledged = dir.outputs.appendingPathComponent("acknowledged")
        _ = manager.createFile(atPath: acknowledged.path, contents: nil)
        let errors = Pipe()
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        writer.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", executable.path,
                            "torture", store, "--run", "w", "--commits", "1000000"]
        writer.standardOutput = try FileHandle(forWritingTo: acknowledged)
        writer.standardError = errors
        writer.standardInput = FileHandle.nullDevice
        try writer.run()
        // SIGKILL: a child of the test process may have SIGTERM blocked.
        defer { if writer.isRunning { kill(writer.processIdentifier, SIGKILL) } }
        let started = Date()
        while (try? Data(contentsOf: acknowledged))?.count ?? 0 < 64, writer.isRunning, Date().timeIntervalSince(started) < 20 {
            usleep(10_000)
        }
        // Replace data.mdb by a copy, as a restore would.
        try manager.copyItem(atPath: store + "/data.mdb", toPath: store + "/data.new")
        try manager.setAttributes([.ownerAccountID: 65534], ofItemAtPath: store + "/data.new")
        #expect(rename(store + "/data.new", store + "/data.mdb") == 0)
        let replaced = Date()
        while writer.isRunning, Date().timeIntervalSince(replaced) < 10 { usleep(10_000) }
        #expect(!writer.isRunning, "the writer went on committing into the replaced data file")
        if writer.isRunning { kill(writer.processIdentifier, SIGKILL) }
        writer.waitUntilExit()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(writer.terminationStatus == 1 && stderr.contains("data.mdb was removed or replaced"), "\(stderr)")
    }
}
