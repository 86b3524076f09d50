import Foundation

/// One sort descriptor of a ``RecordQuery``: a key path, a direction, and how strings order.
///
/// ```swift
/// let newest = KeyPathSort(try KeyValuePath("published"), ascending: false)
/// let byTitle = KeyPathSort(try KeyValuePath("title"), strings: .folded(.caseInsensitive))
/// let same = try KeyPathSort(parsing: "title:c")   // == byTitle
/// ```
///
/// Each record's value at the key path is read as ``ReadTransaction/value(forKeyPath:of:)`` reads
/// it (through dictionaries and references to other records); a key path that has no value, or
/// cannot be read from this record, gives a *missing* value. Values order as follows, ascending:
/// - missing values and `null` first (so they come last in a descending sort);
/// - then `false` before `true`;
/// - then numbers, ints and doubles together by exact numeric value (`2^53 + 1` after the double
///   `2^53`), NaN before every other number;
/// - then strings, by ``StringOrder``;
/// - then dates in time order, bytes by their bytes, references by kind then id, arrays element by
///   element, dictionaries by their sorted keys and then values.
///
/// A descending descriptor reverses this order. Records that tie on every descriptor are ordered by
/// id, ascending, in both directions: the order is total, so pages never overlap.
public struct KeyPathSort: Sendable, Hashable, CustomStringConvertible {
    /// How strings compare in a sort.
    public enum StringOrder: Sendable, Hashable {
        /// By Unicode scalar values of the strings as stored (the default; the order of UTF-8
        /// bytes): `"B" < "a" < "b" < "é"`.
        case unicodeScalars
        /// Folded as a predicate's `[c]`, `[d]` or `[cd]` folds them (<doc:PredicateLanguage>),
        /// then by Unicode scalars: with `[.caseInsensitive]`, `"apple" < "Banana" < "cherry"`.
        /// Strings equal once folded (`"Ada"`, `"ADA"`) tie, and go by id.
        case folded(StringComparisonOptions)
        /// As the locale's language orders words (Foundation's
        /// `compare(_:options:range:locale:)`): `"a" < "B" < "é" < "f"` in English.
        case localized(Locale)
    }

    /// The key path read from each record.
    public var keyPath: KeyValuePath
    /// Whether smaller values come first.
    public var ascending: Bool
    /// How strings compare.
    public var strings: StringOrder

    /// A descriptor ordering by `keyPath`.
    /// - Parameters:
    ///   - keyPath: the key path read from each record; it may go through references.
    ///   - ascending: smaller values (and missing ones) first; false for the reverse.
    ///   - strings: how strings compare; Unicode scalar order by default.
    public init(_ keyPath: KeyValuePath, ascending: Bool = true, strings: StringOrder = .unicodeScalars) {
        self.keyPath = keyPath
        self.ascending = ascending
        self.strings = strings
    }

    /// The descriptor as ``init(parsing:)`` reads it: `published:desc`, `title:c`, `name:localized`
    /// (which stands for the current locale).
    public var description: String {
        var text = keyPath.description
        if !ascending { text += ":desc" }
        switch strings {
        case .unicodeScalars: break
        case .folded(let options) where options.isEmpty: break
        case .folded(let options):
            text += ":" + (options.contains(.caseInsensitive) ? "c" : "") + (options.contains(.diacriticInsensitive) ? "d" : "")
        case .localized: text += ":localized"
        }
        return text
    }
}
