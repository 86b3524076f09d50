import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import KVStore
import Testing
import TestSupport

/// `kvstore studio` as a process: it prints its URL, serves with the token only, and stops on
/// SIGTERM; bad arguments are one line and no server.
@Suite(.tags(.subprocess, .network), .skippedByTag) struct StudioCommandTests {
    let dir: TestDirectory

    init() throws {
        dir = try TestDirectory()
        try dir.succeed("set", dir.path("store"), "person/ada", "name", #""Ada""#)
    }

    @Test func servesWithTheTokenAndStopsOnSIGTERM() async throws {
        let studio = try BackgroundCommand(["studio", dir.path("store"), "--listen", "0", "--no-browser"], in: dir)
        let line = try #require(studio.waitForLines(1).first, "studio printed nothing: \(studio.stderr)")
        #expect(line.hasPrefix("studio: http://127.0.0.1:") && line.contains("/?token="))
        let url = String(line.dropFirst("studio: ".count))
        let base = String(url[..<url.range(of: "/?token=")!.lowerBound])
        #expect(try await Self.status(of: base + "/api/kinds") == 401)
        #expect(try await Self.status(of: url.replacingOccurrences(of: "/?", with: "/api/kinds?")) == 200)
        #expect(studio.stop() == 0)
    }

    @Test func refusesBadArgumentsInOneLine() throws {
        try dir.fail("studio", dir.path("nothing"), "--no-browser", with: "nothing")
        try dir.fail("studio", dir.path("store"), "--listen", "127.0.0.1:99999", "--no-browser", with: "port 99999 is not between 0 and 65535")
        try dir.fail("studio", dir.path("store"), "--listen", "203.0.113.1:0", "--no-browser", with: "cannot listen on 203.0.113.1:0")
    }

    private static func status(of url: String) async throws -> Int {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        let (_, response) = try await session.data(from: URL(string: url)!)
        return (response as! HTTPURLResponse).statusCode
    }
}
