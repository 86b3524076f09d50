import KVStore

/// One line of `kvstore load`'s input: `{"kind":…,"id":…,"values":{…}}`, as `dump` writes it.
struct LoadRecord {
    let kind: String
    /// Nil when the line has no "id": the store generates one.
    let id: String?
    let values: [String: Value]

    /// The record on `line`, or nil for a blank line.
    /// - Throws: a ``CommandError`` starting `line N:`.
    static func parse(_ line: ArraySlice<UInt8>, number: Int) throws(CommandError) -> LoadRecord? {
        if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") }) {
            return nil
        }
        let object: [String: Value]
        do {
            object = try TypedJSON.dictionary(from: Array(line))
        } catch {
            throw CommandError("line \(number), column \(error.column): \(error.problem)")
        }
        func fail(_ problem: String) -> CommandError { CommandError("line \(number): \(problem)") }
        if let unexpected = object.keys.sorted().first(where: { !["kind", "id", "values"].contains($0) }) {
            throw fail("unexpected key '\(unexpected)'; a record line has \"kind\", \"id\" and \"values\"")
        }
        guard case .string(let kind)? = object["kind"] else {
            throw fail(object["kind"] == nil ? "no \"kind\"" : "\"kind\" must be a string")
        }
        var id: String?
        switch object["id"] {
        case nil: id = nil
        case .string(let text)?: id = text
        default: throw fail("\"id\" must be a string")
        }
        guard case .dictionary(let values)? = object["values"] else {
            throw fail(object["values"] == nil ? "no \"values\"" : "\"values\" must be an object")
        }
        do {
            if let id { _ = try RecordRef(kind: kind, id: id) } else { try RecordRef.validate(kind: kind) }
        } catch {
            throw fail("\(error)")
        }
        return LoadRecord(kind: kind, id: id, values: values)
    }
}
