import Hummingbird

/// Edits come from the studio's own page only. Its SameSite=Strict cookie still goes with
/// requests from any page of the same host (127.0.0.1 on another port is the same site), and a
/// form post or a no-cors fetch with `Content-Type: text/plain` needs no preflight. So an edit
/// must say `Content-Type: application/json` (which a cross-origin page cannot send without a
/// preflight, which the studio does not answer), and a browser's `Origin`, when sent, must be the
/// studio's own.
enum EditOrigin {
    static func check(_ request: Request) throws(StudioError) {
        let type = request.headers[.contentType]?.lowercased() ?? ""
        guard type == "application/json" || type.hasPrefix("application/json;") else {
            throw StudioError(status: .unsupportedMediaType, message: "an edit is a JSON body, with 'Content-Type: application/json'")
        }
        if let origin = request.headers[.origin], origin != "http://\(request.head.authority ?? "")" {
            throw StudioError(status: .forbidden, message: "an edit from another origin (\(origin)) is refused")
        }
    }
}
