import Foundation
import Hummingbird
import KVStore

/// The studio's routes, all behind ``TokenCheck``:
///
/// - `GET /` and `GET /assets/NAME`: the web app (compiled in, ``StudioAssets``).
/// - `GET /api/kinds`: kinds with counts and indexes, the journal's range.
/// - `GET /api/records?kind=&where=&sort=&after=&offset=&limit=&asOf=`: a page of the table.
/// - `GET /api/record?ref=&asOf=`: a record's values, and the records referencing it.
/// - `GET /api/journal?before=&limit=&ref=&keyPath=`: journal entries, newest first.
/// - `GET /api/health`: stat figures and commits per second.
/// - `GET /api/events`: server-sent events, one per batch of new journal entries.
/// - `POST /api/set`, `/api/remove`, `/api/insert`, `/api/revert`: edits (403 when read-only).
struct StudioRoutes {
    let studio: StudioServer
    private let health = Health()

    init(studio: StudioServer) {
        self.studio = studio
    }

    func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: TokenCheck(token: studio.token, port: { [studio] in studio.port }))
        let store = studio.store, studio = self.studio, health = self.health
        router.get("/") { _, _ in Self.asset("index.html") }
        router.get("/assets/:name") { _, context in Self.asset(context.parameters.get("name") ?? "") }
        get(router, "/api/kinds") { _ in
            try await store.read { try RecordView.kinds($0, readOnly: studio.configuration.readOnly, path: store.path) }
        }
        get(router, "/api/records") { parameters in
            let page = try RecordPage(parameters)
            let start = ContinuousClock.now
            var body = try await store.read { try page.read($0) }
            body["serverMilliseconds"] = .double(Self.milliseconds(since: start))
            return body
        }
        get(router, "/api/record") { parameters in
            guard let text = parameters["ref"], let ref = try? RecordRef(text) else {
                throw StudioError.badRequest("'ref' must be KIND/ID")
            }
            let asOf = try parameters["asOf"].flatMap { $0.isEmpty ? nil : $0 }.map { text in
                guard let n = UInt64(text) else { throw StudioError.badRequest("'asOf' must be a sequence, not '\(text)'") }
                return n
            }
            return try await store.read { txn in
                try RecordView.read(txn, ref: try txn.resolvingUUIDSpelling(ref), asOf: asOf)
            }
        }
        get(router, "/api/journal") { parameters in
            let page = try JournalPage(parameters)
            return try await store.read { try page.read($0) }
        }
        get(router, "/api/health") { _ in try health.report(store, live: studio.live) }
        router.get("/api/events") { _, _ in Self.events(studio.live.subscribe()) }
        post(router, "/api/set", Edits.set)
        post(router, "/api/remove", Edits.remove)
        post(router, "/api/insert", Edits.insert)
        post(router, "/api/revert", Edits.revert)
        return router
    }

    /// A GET route answering with typed JSON; refusals and library errors become `{"error":…}`.
    private func get(
        _ router: Router<BasicRequestContext>, _ path: RouterPath,
        _ body: @escaping @Sendable ([String: String]) async throws -> [String: Value]
    ) {
        router.get(path) { request, _ in
            await Self.answer { try await body(Self.parameters(of: request)) }
        }
    }

    /// A POST route taking a typed JSON object; refused with 403 when the studio is read-only.
    private func post(
        _ router: Router<BasicRequestContext>, _ path: RouterPath,
        _ edit: @escaping @Sendable ([String: Value], Store) async throws -> [String: Value]
    ) {
        let store = studio.store, readOnly = studio.configuration.readOnly
        router.post(path) { request, _ in
            await Self.answer {
                guard !readOnly else { throw StudioError(status: .forbidden, message: "the studio is read-only (--read-only)") }
                try EditOrigin.check(request)
                return try await edit(try await StudioJSON.object(in: request), store)
            }
        }
    }

    private static func answer(_ body: () async throws -> [String: Value]) async -> Response {
        do {
            return StudioJSON.response(try await body())
        } catch let error as StudioError {
            return StudioJSON.response(error)
        } catch {
            return StudioJSON.response(StudioError.badRequest("\(error)"))
        }
    }

    private static func parameters(of request: Request) -> [String: String] {
        var parameters: [String: String] = [:]
        for (key, value) in request.uri.queryParameters { parameters[String(key)] = String(value) }
        return parameters
    }

    private static func milliseconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
    }

    /// One of the compiled-in files, or 404.
    private static func asset(_ name: String) -> Response {
        guard let file = StudioAssets.files[name] else {
            return StudioJSON.response(StudioError(status: .notFound, message: "no such file: \(name)"))
        }
        var headers = HTTPFields()
        headers[.contentType] = file.type
        headers[.cacheControl] = "no-cache"
        headers[.contentSecurityPolicy] = "default-src 'self'; img-src 'self' data:; style-src 'self'"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: file.body)))
    }

    /// The server-sent events: each string of `events` as it comes, until the studio stops or
    /// the page goes away.
    private static func events(_ events: AsyncStream<String>) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            for await event in events {
                try await writer.write(ByteBuffer(string: event))
            }
            try await writer.finish(nil)
        })
    }
}
