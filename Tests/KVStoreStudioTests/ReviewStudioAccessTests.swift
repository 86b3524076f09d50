import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import KVStore
@testable import KVStoreStudio
import Testing
import TestSupport

/// Review: what a browser does that the fixture's client does not — send every cookie of the host
/// (whatever its port), and post simple cross-origin requests.
@Suite(.tags(.network), .skippedByTag)
struct ReviewStudioAccessTests {
    /// Cookies are not kept per port: a browser sends a studio every cookie of 127.0.0.1. A second
    /// studio's cookie must not take the place of the first's, or the first tab's every request
    /// is refused with 403 once the second studio is opened.
    @Test func aSecondStudioDoesNotLockOutTheFirst() async throws {
        try await StudioFixture.with { first in
            let second = StudioServer(store: first.store)
            try await second.start()
            do {
                var jar: [String: String] = [:]  // a browser's cookies for the host 127.0.0.1, by name
                for studio in [first.studio, second] {
                    let pair = try await Self.cookie(of: studio).split(separator: "=", maxSplits: 1).map(String.init)
                    jar[pair[0]] = pair[1]
                }
                let header = jar.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
                for studio in [first.studio, second] {
                    let answer = try await Self.send(studio, "/api/kinds", headers: ["Cookie": header])
                    #expect(answer.status == 200, "port \(studio.port): \(answer.body)")
                }
            } catch {
                await second.stop()
                throw error
            }
            await second.stop()
        }
    }

    /// A page on another port of 127.0.0.1 is same-site, so the SameSite=Strict cookie goes with
    /// its form posts (`Content-Type: text/plain`, no preflight). An edit must not pass that way.
    @Test func refusesAnEditPostedAsAFormFromAnotherOrigin() async throws {
        try await StudioFixture.with(fill: { try $0.insert(["n": 1], as: ref("item/1")) }) { fixture in
            let cookie = try await Self.cookie(of: fixture.studio)
            let plain = try await Self.send(fixture.studio, "/api/remove", method: "POST", body: #"{"ref":"item/1"}"#,
                                            headers: ["Cookie": cookie, "Content-Type": "text/plain"])
            #expect(plain.status == 415)
            let origin = try await Self.send(fixture.studio, "/api/remove", method: "POST", body: #"{"ref":"item/1"}"#,
                                             headers: ["Cookie": cookie, "Content-Type": "application/json", "Origin": "http://127.0.0.1:1"])
            #expect(origin.status == 403)
            #expect(try await fixture.store.read { try $0.contains(ref("item/1")) })
            let own = try await Self.send(fixture.studio, "/api/remove", method: "POST", body: #"{"ref":"item/1"}"#,
                                          headers: ["Cookie": cookie, "Content-Type": "application/json",
                                                    "Origin": "http://127.0.0.1:\(fixture.studio.port)"])
            #expect(own.status == 200)
            #expect(try await fixture.store.read { try $0.contains(ref("item/1")) } == false)
        }
    }

    /// `NAME=VALUE` of the cookie the studio sets for the URL it prints.
    static func cookie(of studio: StudioServer) async throws -> String {
        let opened = try await send(studio, "/?token=\(studio.token)", headers: [:])
        #expect(opened.status == 200)
        let cookie = try #require(opened.headers["set-cookie"])
        return String(try #require(cookie.split(separator: ";").first))
    }

    /// A request with exactly these headers (no cookie handling of the client's own).
    static func send(
        _ studio: StudioServer, _ pathAndQuery: String, method: String = "GET", body: String? = nil, headers: [String: String]
    ) async throws -> (status: Int, headers: [String: String], body: String) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(studio.port)\(pathAndQuery)")!)
        request.httpMethod = method
        request.httpShouldHandleCookies = false
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body { request.httpBody = Data(body.utf8) }
        return try await StudioFixture.exchange(request)
    }
}
