#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import TestSupport

/// A careless operator's token files and listen addresses, and a hostile client's view of what
/// `serve` and `replicate` print: each is one line, and the token shows nowhere.
@Suite(.tags(.subprocess), .skippedByTag) struct SecurityReviewCommandTests {
    let dir: TestDirectory
    let source: String

    init() throws {
        dir = try TestDirectory()
        source = dir.path("source")
        try makeSource(dir, "source")
    }

    @Test func tokenFilesThatHoldNoTokenAreRefusedInOneLineWithoutWaiting() throws {
        try FileManager.default.createDirectory(atPath: dir.path("a-directory"), withIntermediateDirectories: false)
        try writeSecret("", to: dir.path("empty"))
        try writeSecret("\n0123456789abcdef0123\n", to: dir.path("second-line"))
        try #require(mkfifo(dir.path("fifo"), 0o600) == 0)
        let cases: [(String, String)] = [
            (dir.path("a-directory"), "is not a regular file"),
            (dir.path("fifo"), "is not a regular file"),   // never opened: it would block
            (dir.path("empty"), "has 0 bytes; a token needs at least 16"),
            (dir.path("second-line"), "has 0 bytes; a token needs at least 16"),
            (dir.path("missing"), "cannot read token file"),
        ]
        for (path, message) in cases {
            try dir.fail(["serve", source, "--listen", "127.0.0.1:0", "--token-file", path], says: message)
        }
    }

    @Test(arguments: ["0.0.0.0:0", "[::]:0", "0:0", "[::ffff:0.0.0.0]:0", "lo:0", "[::127.0.0.1]:0"])
    func aListenAddressThatIsNotLoopbackIsRefusedWithoutTLS(_ listen: String) throws {
        try dir.fail(["serve", source, "--listen", listen], says: "is not a loopback address: listening there needs TLS and authentication")
    }

    @Test(.tags(.network)) func theTokenShowsInNoOutputOfARefusal() throws {
        let token = "a3f1c9e07b5d42869e1f0a7c3b5d8e21"
        let wrong = "0000000000000000000000000000000f"
        try writeSecret(token + "\n", to: dir.path("token"))
        try writeSecret(wrong + "\n", to: dir.path("wrong"))
        let server = try BackgroundCommand(["serve", source, "--listen", "127.0.0.1:0", "--token-file", dir.path("token")], in: dir)
        let line = try #require(server.waitForLines(1).first, "serve printed nothing: \(server.stderr)")
        let port = try #require(Int(line.split(separator: ":").last ?? ""))

        let refused = try dir.fail(["replicate", "tcp://127.0.0.1:\(port)", dir.path("replica"), "--token-file", dir.path("wrong")], says: "wrong token")

        #expect(waitUntil { server.stderr.contains("serve: refused 127.0.0.1:") })
        #expect(server.stop() == 0)
        for output in [refused.stdout, refused.stderr, server.stderr] {
            #expect(!output.contains(token) && !output.contains(wrong), "\(output)")
        }
    }
}
