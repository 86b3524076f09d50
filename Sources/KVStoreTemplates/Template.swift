import Foundation
import KVStore

/// A text template whose `[[keyPath]]` tags are replaced by a record's values: `kvstore render`.
///
/// The syntax, the whole of it:
/// - `[[keyPath]]` is replaced by the text of the value at the key path, **HTML-escaped**
///   (`&` `<` `>` `"` `'` become `&amp;` `&lt;` `&gt;` `&quot;` `&#39;`). Spaces around the key
///   path are ignored: `[[ name ]]` is `[[name]]`.
/// - `[[raw keyPath]]` is replaced by the same text, not escaped: only where the template asks.
/// - Everything else is copied as it is, a lone `]]` included. There is no escape for a literal
///   `[[`: every `[[` opens a tag, so a tag not closed before the next `[[` is an error.
///
/// Key paths are those of `ReadTransaction.value(forKeyPath:of:)`: nested dictionaries,
/// references, arrays and collection operators (`[[lines.@sum.amount]]`). A value's text is
/// ``text(of:)``. A key path with no value — including an undefined key, after the kind's
/// `valueForUndefinedKey` hook — gives empty text, or an error when rendering is strict.
///
/// ```swift
/// let template = try Template("<h1>[[name]]</h1><p>[[address.city]], [[raw bio]]</p>")
/// let html = try store.read { txn in try template.render(ada, in: txn) }
/// ```
/// Parsing checks the whole template first: an unclosed `[[`, an empty tag or a malformed key
/// path is a ``TemplateError`` naming its line and column.
public struct Template: Sendable {
    /// A piece of a parsed template.
    public enum Part: Sendable, Hashable {
        /// Text copied as it is.
        case text(String)
        /// A tag: the key path, whether it is raw (not escaped), and where it starts.
        case value(KeyValuePath, raw: Bool, position: TemplateError.Position)
    }

    /// The template's parts, in order.
    public let parts: [Part]

    /// Parses `text`.
    /// - Throws: ``TemplateError`` naming the line and column of the problem.
    public init(_ text: String) throws(TemplateError) {
        parts = try TemplateParser(text).parse()
    }

    /// The template with each tag replaced by the value at its key path in record `ref`.
    ///
    /// - Parameters:
    ///   - ref: the record whose values fill the tags.
    ///   - txn: the transaction to read the record (and the records its key paths reach) in.
    ///   - strict: when true, a key path with no value (nil or `null`) is a ``TemplateError``
    ///     naming it; when false (the default), it gives empty text.
    /// - Throws: ``TemplateError``, or `KeyValueCodingError` (`recordNotFound`, an undefined key
    ///   of a closed kind, a key into a scalar, …) from reading the record.
    public func render(_ ref: RecordRef, in txn: ReadTransaction, strict: Bool = false) throws -> String {
        guard try txn.contains(ref) else { throw KeyValueCodingError.recordNotFound(ref) }
        var output = ""
        for part in parts {
            switch part {
            case .text(let text):
                output += text
            case .value(let keyPath, let raw, let position):
                let value = try txn.value(forKeyPath: keyPath.description, of: ref)
                if strict, value == nil || value == .null {
                    throw TemplateError(.undefinedValue, "no value at key path '\(keyPath)' of \(ref)", at: position)
                }
                let text = value.map(Self.text(of:)) ?? ""
                output += raw ? text : Self.escapingHTML(text)
            }
        }
        return output
    }
}

extension Template {
    /// The text a tag shows for a value: a string as it is; `null` as nothing; a bool, int or
    /// double as its typed JSON number or word (`true`, `42`, `120.5`), a non-finite double as
    /// `NaN`, `Infinity` or `-Infinity`; a date as its ISO 8601 text (`2016-07-15T00:00:00Z`);
    /// bytes as base64; a reference as `kind/id`; an array or dictionary as compact typed JSON.
    ///
    /// ```swift
    /// Template.text(of: .date(Date(timeIntervalSince1970: 0)))   // "1970-01-01T00:00:00Z"
    /// ```
    public static func text(of value: Value) -> String {
        switch value {
        case .null: ""
        case .string(let string): string
        case .reference(let ref): ref.description
        case .bytes(let data): data.base64EncodedString()
        case .double(let double) where !double.isFinite:
            double.isNaN ? "NaN" : double < 0 ? "-Infinity" : "Infinity"
        case .date(let date):
            switch TypedJSONDate.form(of: date) {
            case .text(let text): text
            case .seconds(let seconds): TypedJSON.string(from: .double(seconds))
            }
        default: TypedJSON.string(from: value)
        }
    }

    /// `text` with `&`, `<`, `>`, `"` and `'` replaced by HTML entities.
    ///
    /// ```swift
    /// Template.escapingHTML(#"<a href="x">Tom & Jerry's</a>"#)
    /// // "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;"
    /// ```
    public static func escapingHTML(_ text: String) -> String {
        guard text.utf8.contains(where: { "&<>\"'".utf8.contains($0) }) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
        for character in text.unicodeScalars {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }
}
