import Foundation
import Hummingbird
import KVStore

/// A request the studio refuses: its HTTP status and one line naming the problem, sent as
/// `{"error": "…"}` plus any `details` (a predicate's `line` and `column`).
struct StudioError: Error {
    let status: HTTPResponse.Status
    let message: String
    var details: [String: Value] = [:]

    static func badRequest(_ message: String, _ details: [String: Value] = [:]) -> StudioError {
        StudioError(status: .badRequest, message: message, details: details)
    }
}

/// The API's bodies: typed JSON (values keep their `$ref`, `$date`, `$bytes`), so the page shows
/// and sends exactly what `kvstore get` and `kvstore set` do.
enum StudioJSON {
    /// A 200 response with `body` as typed JSON.
    static func response(_ body: [String: Value], status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: TypedJSON.string(from: body))))
    }

    /// The response for a refused request.
    static func response(_ error: StudioError) -> Response {
        var body = error.details
        body["error"] = .string(error.message)
        return response(body, status: error.status)
    }

    /// A sequence or commit number.
    static func number(_ n: UInt64) -> Value { .int(Int64(clamping: n)) }

    /// A journal entry as the page reads it.
    static func entry(_ entry: JournalEntry) -> Value {
        var fields: [String: Value] = [
            "sequence": number(entry.sequence), "commit": number(entry.commitID),
            "time": .double(entry.timestamp.timeIntervalSince1970 * 1000),
            "ref": .string(entry.ref.description), "kind": .string(entry.ref.kind), "id": .string(entry.ref.id),
            "change": .string(entry.change.rawValue),
            "keyPath": entry.keyPath.map(Value.string) ?? .null,
            "old": entry.oldValue ?? .null, "new": entry.newValue ?? .null,
            "hasOld": .bool(entry.oldValue != nil), "hasNew": .bool(entry.newValue != nil),
        ]
        if let indexes = entry.indexes { fields["indexes"] = .array(indexes.map { .int(Int64($0)) }) }
        return .dictionary(fields)
    }

    /// The typed JSON object in a request's body.
    static func object(in request: Request) async throws -> [String: Value] {
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: 16 << 20)
        } catch {
            throw StudioError(status: .contentTooLarge, message: "the request body is over 16 MiB")
        }
        do {
            return try TypedJSON.dictionary(from: String(buffer: buffer))
        } catch {
            throw StudioError.badRequest("the body is not a typed JSON object: \(error)")
        }
    }
}

extension Dictionary where Key == String, Value == KVStore.Value {
    /// The string at `key`, required.
    func string(_ key: String) throws(StudioError) -> String {
        guard case .string(let text)? = self[key] else { throw .badRequest("'\(key)' must be a string") }
        return text
    }

    /// The record reference at `key`: `KIND/ID`, as a string.
    func ref(_ key: String) throws -> RecordRef {
        let text = try string(key)
        do {
            return try RecordRef(text)
        } catch {
            throw StudioError.badRequest("'\(key)': \(error)")
        }
    }
}
