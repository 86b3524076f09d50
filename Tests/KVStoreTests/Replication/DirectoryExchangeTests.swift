import Foundation
import Testing
import TestSupport
@testable import KVStore

/// Putting a directory built beside another in its place (a reseeded replica).
@Suite struct DirectoryExchangeTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.path("old"), withIntermediateDirectories: true)
        try Data("old".utf8).write(to: URL(fileURLWithPath: directory.path("old/file")))
        try FileManager.default.createDirectory(atPath: directory.path("new"), withIntermediateDirectories: true)
        try Data("new".utf8).write(to: URL(fileURLWithPath: directory.path("new/file")))
    }

    private func contents(_ name: String) -> String? {
        (try? Data(contentsOf: URL(fileURLWithPath: directory.path(name) + "/file"))).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func theNewDirectoryTakesThePlaceOfTheOldOneWhichGoes() throws {
        try DirectoryExchange.replace(directory.path("old"), with: directory.path("new"))
        #expect(contents("old") == "new")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["old"])
    }

    /// An exchange that fails for another reason than the system not exchanging (here: the new
    /// directory is gone) leaves the old directory where it was.
    @Test func aFailedExchangeLeavesTheOldDirectoryInPlace() throws {
        try FileManager.default.removeItem(atPath: directory.path("new"))
        #expect(throws: (any Error).self) { try DirectoryExchange.replace(directory.path("old"), with: directory.path("new")) }
        #expect(contents("old") == "old")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["old"])
    }
}
