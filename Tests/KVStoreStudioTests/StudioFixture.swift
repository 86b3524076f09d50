import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import KVStore
@testable import KVStoreStudio
import TestSupport

/// A studio over a fresh store in its own temporary directory, on a free loopback port, and an
/// HTTP client for it that sends the token (or not) as each test asks.
final class StudioFixture: Sendable {
    let directory: TemporaryDirectory
    let store: Store
    let studio: StudioServer

    /// An answer: the status, the headers, and the body as typed JSON (empty for non-JSON).
    struct Answer {
        let status: Int
        let headers: [String: String]
        let body: [String: Value]

        var error: String? { if case .string(let text)? = body["error"] { text } else { nil } }
    }

    /// How a request proves itself.
    enum Credential {
        case token, cookie, none
        case wrongToken, wrongCookie
    }

    private init(directory: TemporaryDirectory, store: Store, studio: StudioServer) {
        self.directory = directory
        self.store = store
        self.studio = studio
    }

    /// Runs `body` with a studio over a store that `fill` wrote, and stops the studio after it.
    static func with(
        readOnly: Bool = false, fill: @Sendable (WriteTransaction) throws -> Void = { _ in },
        _ body: (StudioFixture) async throws -> Void
    ) async throws {
        let directory = try TemporaryDirectory()
        var options = Store.Options()
        options.durability = .noSync
        let store = try Store(path: directory.path("store"), options: options)
        try store.write(fill)
        var configuration = StudioServer.Configuration()
        configuration.readOnly = readOnly
        let studio = StudioServer(store: store, configuration: configuration)
        try await studio.start()
        let fixture = StudioFixture(directory: directory, store: store, studio: studio)
        do {
            try await body(fixture)
        } catch {
            await studio.stop()
            throw error
        }
        await studio.stop()
    }

    func get(_ path: String, _ parameters: [String: String] = [:], as credential: Credential = .cookie) async throws -> Answer {
        try await send("GET", path, parameters, body: nil, as: credential)
    }

    func post(_ path: String, _ body: String, as credential: Credential = .cookie) async throws -> Answer {
        try await send("POST", path, [:], body: body, as: credential)
    }

    func post(_ path: String, _ body: [String: Value]) async throws -> Answer {
        try await post(path, TypedJSON.string(from: body))
    }

    private func send(_ method: String, _ path: String, _ parameters: [String: String], body: String?, as credential: Credential) async throws -> Answer {
        var components = URLComponents(string: "http://127.0.0.1:\(studio.port)\(path)")!
        var items = parameters.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        switch credential {
        case .token: items.append(URLQueryItem(name: "token", value: studio.token))
        case .wrongToken: items.append(URLQueryItem(name: "token", value: String(studio.token.reversed())))
        default: break
        }
        if !items.isEmpty { components.queryItems = items }
        // A "+" would read as itself: the page's encodeURIComponent writes %2B.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        var request = URLRequest(url: components.url!)
        request.httpMethod = method
        request.httpShouldHandleCookies = false
        switch credential {
        case .cookie: request.setValue("\(TokenCheck.cookieName(port: studio.port))=\(studio.token)", forHTTPHeaderField: "Cookie")
        case .wrongCookie: request.setValue("\(TokenCheck.cookieName(port: studio.port))=nope", forHTTPHeaderField: "Cookie")
        default: break
        }
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (status, headers, text) = try await Self.exchange(request)
        let json = (try? TypedJSON.dictionary(from: text)) ?? [:]
        return Answer(status: status, headers: headers, body: json)
    }

    /// Sends `request` on a session that keeps no cookies: the status, the headers (lowercased
    /// names) and the body as text.
    static func exchange(_ request: URLRequest) async throws -> (status: Int, headers: [String: String], body: String) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(for: request)
        let http = response as! HTTPURLResponse
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields { headers[String(describing: key).lowercased()] = String(describing: value) }
        return (http.statusCode, headers, String(decoding: data, as: UTF8.self))
    }
}

extension Value {
    /// The rows of a page, as (id, values).
    var rows: [(id: String, values: [String: Value])] {
        guard case .array(let rows) = self else { return [] }
        return rows.compactMap { row in
            guard case .dictionary(let fields) = row, case .string(let id)? = fields["id"],
                  case .dictionary(let values)? = fields["values"] else { return nil }
            return (id, values)
        }
    }

    var strings: [String] {
        guard case .array(let items) = self else { return [] }
        return items.compactMap { if case .string(let text) = $0 { text } else { nil } }
    }
}

/// `KIND/ID` as a reference (the tests' texts are valid).
func ref(_ text: String) -> RecordRef { try! RecordRef(text) }
