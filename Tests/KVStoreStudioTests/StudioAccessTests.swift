import Foundation
import KVStore
@testable import KVStoreStudio
import Testing
import TestSupport

/// The token: every route refuses a request without it, and the URL's token becomes a cookie.
@Suite(.tags(.network), .skippedByTag)
struct StudioAccessTests {
    @Test func refusesRequestsWithoutTheToken() async throws {
        try await StudioFixture.with { fixture in
            for path in ["/", "/assets/app.js", "/api/kinds", "/api/records", "/api/health", "/api/events"] {
                #expect(try await fixture.get(path, as: .none).status == 401, "\(path)")
                #expect(try await fixture.get(path, as: .wrongToken).status == 403, "\(path)")
                #expect(try await fixture.get(path, as: .wrongCookie).status == 403, "\(path)")
            }
            let refused = try await fixture.post("/api/insert", #"{"ref":"person/x","values":{}}"#, as: .none)
            #expect(refused.status == 401)
            #expect(try await fixture.store.read { try $0.contains(ref("person/x")) } == false)
        }
    }

    @Test func exchangesTheTokenForAStrictHttpOnlyCookie() async throws {
        try await StudioFixture.with { fixture in
            let first = try await fixture.get("/", as: .token)
            #expect(first.status == 200)
            let cookie = try #require(first.headers["set-cookie"])
            #expect(cookie.hasPrefix("\(TokenCheck.cookieName(port: fixture.studio.port))=\(fixture.studio.token)"))
            #expect(cookie.contains("HttpOnly"))
            #expect(cookie.contains("SameSite=Strict"))
            #expect(try await fixture.get("/api/kinds", as: .cookie).status == 200)
            #expect(fixture.studio.url == "http://127.0.0.1:\(fixture.studio.port)/?token=\(fixture.studio.token)")
        }
    }

    @Test func eachStudioHasItsOwnRandomToken() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store(path: directory.path("store"))
        let tokens = Set((0..<8).map { _ in StudioServer(store: store).token })
        #expect(tokens.count == 8)
        #expect(tokens.allSatisfy { $0.count == 64 })
    }

    @Test func refusesAnAddressItCannotBind() async throws {
        try await StudioFixture.with { fixture in
            var configuration = StudioServer.Configuration()
            configuration.port = fixture.studio.port
            let second = StudioServer(store: fixture.store, configuration: configuration)
            await #expect(throws: StudioStartError.self) { try await second.start() }
        }
    }

    /// The compiled-in app is the one in Tools/studio/web: run Tools/studio/generate_assets.py
    /// after editing it.
    @Test func compiledAssetsMatchTheWebFolder() throws {
        let web = packageRoot.appendingPathComponent("Tools/studio/web")
        let names = try FileManager.default.contentsOfDirectory(atPath: web.path).sorted()
        #expect(names == StudioAssets.files.keys.sorted())
        for name in names {
            let text = try String(contentsOf: web.appendingPathComponent(name), encoding: .utf8)
            #expect(StudioAssets.files[name]?.body == text.trimmingTrailingNewlines(), "\(name) changed: run Tools/studio/generate_assets.py")
        }
    }
}

extension String {
    fileprivate func trimmingTrailingNewlines() -> String {
        var text = self
        while text.hasSuffix("\n") { text.removeLast() }
        return text
    }
}
