import Hummingbird

/// Lets through only requests that carry the studio's token: as `?token=` (the URL printed at
/// start; the response then sets it as an HttpOnly, SameSite=Strict cookie, so the page's own
/// requests need not repeat it) or as that cookie. Without either: 401; with a wrong one: 403.
///
/// The cookie is named after the port (``cookieName(port:)``): a browser keeps cookies per host,
/// not per port, so with one name a second studio opened on 127.0.0.1 would replace the first
/// one's cookie, and refuse the first tab's every request.
struct TokenCheck: RouterMiddleware {
    typealias Context = BasicRequestContext

    let token: String
    /// The port listened on, known once bound.
    let port: @Sendable () -> Int

    /// The name of the cookie of the studio listening on `port`.
    static func cookieName(port: Int) -> String { "kvstore_studio_\(port)" }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let name = Self.cookieName(port: port())
        let cookie = request.cookies[name]?.value
        if let cookie, Self.same(cookie, token) { return try await next(request, context) }
        if let given = request.uri.queryParameters["token"].map(String.init) {
            guard Self.same(given, token) else { return refusal(.forbidden, "wrong token") }
            var response = try await next(request, context)
            response.setCookie(Cookie(name: name, value: token, path: "/", httpOnly: true, sameSite: .strict))
            return response
        }
        if cookie != nil { return refusal(.forbidden, "wrong token") }
        return refusal(.unauthorized, "no token: open the URL that 'kvstore studio' printed, with its ?token=")
    }

    private func refusal(_ status: HTTPResponse.Status, _ message: String) -> Response {
        StudioJSON.response(StudioError(status: status, message: message))
    }

    /// Compares in time that does not depend on where the texts differ.
    private static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
