/// Typed JSON: the text form of ``Value`` used by the command-line tool, dump and load, and journal
/// export.
///
/// JSON null, booleans, strings, arrays and objects map directly. A number without `.` or exponent is
/// an ``Value/int(_:)``, any other number a ``Value/double(_:)``. The other types are single-key
/// objects with a `$` tag:
///
/// | Value                        | Typed JSON                                  |
/// |------------------------------|---------------------------------------------|
/// | `.date`                      | `{"$date":"2016-07-15T00:00:00.25Z"}`       |
/// | `.bytes`                     | `{"$bytes":"AAEC"}` (base64)                |
/// | `.double(.nan)`, `±infinity` | `{"$double":"NaN"}`, `"Infinity"`, `"-Infinity"` |
/// | `.reference`                 | `{"$ref":"person/ada"}`                     |
/// | a dictionary whose only key starts with `$` | `{"$dict":{"$x":1}}`         |
///
/// ```swift
/// let value: Value = ["born": 1815, "height": 1.65, "name": "Ada"]
/// TypedJSON.string(from: value)            // {"born":1815,"height":1.65,"name":"Ada"}
/// try TypedJSON.value(from: "[1, 1.0]")    // [.int(1), .double(1.0)]
/// ```
///
/// Output is deterministic, so dump → load → dump is byte-identical: object keys are sorted by their
/// UTF-8 bytes; doubles use Swift's shortest round-trip form and always contain `.` or an exponent
/// (`1.0`, `1e+20`, `-0.0`); dates are ISO 8601 in UTC with the shortest fraction of a second that
/// reproduces the stored `Double` exactly. Compact output has no spaces; pretty output indents by two
/// spaces and keeps tagged scalars on one line (`{"$date": "…"}`). Neither ends with a newline.
///
/// Dates use the proleptic Gregorian calendar; years outside 0000…9999 are written with a sign
/// (`-0001`, `+10000`). Dates that ISO 8601 cannot express are written `{"$date":"NaN"}`,
/// `"Infinity"`, `"-Infinity"`, or, at 2^53 seconds or more from 2001-01-01 (and for -0.0 seconds), as
/// a number of seconds since 2001-01-01T00:00:00Z: `{"$date":1e+300}`. On input `$date` also accepts
/// a `±HH:MM` offset, and any number, as seconds since 2001-01-01T00:00:00Z (Swift's reference
/// date, not the Unix epoch): `{"$date":0}` is `2001-01-01T00:00:00Z` and `{"$date":-86400.5}` is
/// `2000-12-30T23:59:59.5Z` (written back as ISO 8601 text). A NaN double or date is read back as
/// the standard NaN (payloads are not kept).
///
/// Parsing is strict (RFC 8259): no trailing commas, comments, leading zeros, lone surrogates,
/// invalid UTF-8, duplicate keys or trailing text; nesting is limited to 512 arrays and objects.
/// An object whose only key starts with `$` must be one of the tags above.
public enum TypedJSON {
    /// The deepest nesting of JSON arrays and objects (tagged objects included) the parser accepts.
    public static let maxDepth = 512

    /// Writes a value as typed JSON.
    ///
    /// ```swift
    /// TypedJSON.string(from: .double(.infinity))   // {"$double":"Infinity"}
    /// TypedJSON.string(from: ["a": [1, 2]], pretty: true)
    /// // {
    /// //   "a": [
    /// //     1,
    /// //     2
    /// //   ]
    /// // }
    /// ```
    public static func string(from value: Value, pretty: Bool = false) -> String {
        String(decoding: utf8(from: value, pretty: pretty), as: UTF8.self)
    }

    /// Writes a record's dictionary as a typed JSON object.
    ///
    /// ```swift
    /// TypedJSON.string(from: ["name": "Ada"] as [String: Value])   // {"name":"Ada"}
    /// ```
    public static func string(from dictionary: [String: Value], pretty: Bool = false) -> String {
        string(from: .dictionary(dictionary), pretty: pretty)
    }

    /// Writes a value as typed JSON, as UTF-8 bytes.
    ///
    /// ```swift
    /// TypedJSON.utf8(from: true)   // Array("true".utf8)
    /// ```
    public static func utf8(from value: Value, pretty: Bool = false) -> [UInt8] {
        var writer = JSONWriter(pretty: pretty)
        writer.write(value)
        return writer.bytes
    }

    /// Parses typed JSON.
    ///
    /// ```swift
    /// try TypedJSON.value(from: #"{"$date":"2016-07-15T00:00:00Z"}"#)   // .date(…)
    /// ```
    /// - Throws: ``TypedJSONError`` with the line and column of the problem.
    public static func value(from text: String) throws(TypedJSONError) -> Value {
        var text = text
        return try text.withUTF8 { bytes in
            Result { () throws(TypedJSONError) -> Value in try JSONParser.parse(bytes).value }
        }.get()
    }

    /// Parses typed JSON from UTF-8 bytes (invalid UTF-8 is an error).
    ///
    /// ```swift
    /// try TypedJSON.value(from: Array("[1,2]".utf8))   // [.int(1), .int(2)]
    /// ```
    /// - Throws: ``TypedJSONError`` with the line and column of the problem.
    public static func value(from bytes: [UInt8]) throws(TypedJSONError) -> Value {
        try bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(TypedJSONError) -> Value in try JSONParser.parse(buffer).value }
        }.get()
    }

    /// Parses a typed JSON object into a record's dictionary.
    ///
    /// ```swift
    /// try TypedJSON.dictionary(from: #"{"name":"Ada"}"#)   // ["name": .string("Ada")]
    /// try TypedJSON.dictionary(from: "[]")                 // throws: expected an object
    /// ```
    /// - Throws: ``TypedJSONError`` when the text is not valid typed JSON or not an object.
    public static func dictionary(from text: String) throws(TypedJSONError) -> [String: Value] {
        var text = text
        return try text.withUTF8 { bytes in
            Result { () throws(TypedJSONError) -> [String: Value] in try parseDictionary(bytes) }
        }.get()
    }

    /// Parses a typed JSON object, given as UTF-8 bytes, into a record's dictionary.
    /// - Throws: ``TypedJSONError`` when the text is not valid typed JSON or not an object.
    public static func dictionary(from bytes: [UInt8]) throws(TypedJSONError) -> [String: Value] {
        try bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(TypedJSONError) -> [String: Value] in try parseDictionary(buffer) }
        }.get()
    }

    private static func parseDictionary(_ bytes: UnsafeBufferPointer<UInt8>) throws(TypedJSONError) -> [String: Value] {
        let (value, start) = try JSONParser.parse(bytes)
        guard case .dictionary(let dictionary) = value else {
            throw JSONParser.error(
                "expected an object (a dictionary), found \(article(value.type)) \(value.type)",
                at: start,
                in: bytes
            )
        }
        return dictionary
    }

    private static func article(_ type: ValueType) -> String {
        type == .array || type == .int ? "an" : "a"
    }
}

/// Text that is not valid typed JSON, with the line and column (both from 1) of the problem.
///
/// ```swift
/// do {
///     _ = try TypedJSON.value(from: #"{"a":1 "b":2}"#)
/// } catch {
///     print(error)   // line 1, column 8: expected ',' or '}' in object
/// }
/// ```
public struct TypedJSONError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The line of the problem, from 1.
    public let line: Int
    /// The column of the problem, from 1, counted in Unicode scalars.
    public let column: Int
    /// What is wrong.
    public let problem: String

    /// An error at `line` and `column` (from 1) saying `problem`.
    public init(line: Int, column: Int, problem: String) {
        self.line = line
        self.column = column
        self.problem = problem
    }

    /// `line L, column C: problem`.
    public var description: String { "line \(line), column \(column): \(problem)" }
}
