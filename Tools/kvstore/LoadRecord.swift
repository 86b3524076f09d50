import KVStore

/// One line of `kvstore load`'s input: `{"kind":…,"id":…,"values":{…}}`, as `dump` writes it.
/// A dump of a migrated store starts with `{"migrations":[…]}` (``LoadLine/migrations(_:)``).
enum LoadLine {
    case record(LoadRecord)
    /// The migrations applied to the store the records were dumped from, in the order they ran.
    case migrations([String])
}

struct LoadRecord {
    /// The key of the line listing a dumped store's applied migrations.
    static let migrationsKey = "migrations"

    let kind: String
    /// Nil when the line has no "id": the store generates one.
    let id: String?
    let values: [String: Value]

    /// The record or migrations on `line`, or nil for a blank line.
    /// - Throws: a ``CommandError`` starting `line N:`.
    static func parse(_ line: ArraySlice<UInt8>, number: Int) throws(CommandError) -> LoadLine? {
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
        if object.keys.contains(migrationsKey) {
            guard object.count == 1, case .array(let names)? = object[migrationsKey] else {
                throw fail("a \"\(migrationsKey)\" line has only that key, a list of names")
            }
            return .migrations(try names.map { name throws(CommandError) in
                guard case .string(let text) = name else { throw fail("\"\(migrationsKey)\" must list names (strings)") }
                return text
            })
        }
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
        return .record(LoadRecord(kind: kind, id: id, values: values))
    }
}
