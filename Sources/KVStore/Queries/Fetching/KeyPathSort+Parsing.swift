import Foundation

extension KeyPathSort {
    /// Parses a sort key as the `kvstore query --sort` option writes it: `KEYPATH[:OPTION]...`.
    ///
    /// The options, in any order, at most one of each group:
    /// - `asc` (the default) or `desc`: the direction;
    /// - `c`, `d` or `cd`: strings folded as a predicate's `[c]`, `[d]`, `[cd]` fold them
    ///   (``StringOrder/folded(_:)``); or `localized`: strings in the current locale's order
    ///   (``StringOrder/localized(_:)``). Without one, strings order by Unicode scalars.
    ///
    /// Option words are case-insensitive. The first `:` ends the key path, so a key that holds a
    /// `:` can only be sorted on through ``init(_:ascending:strings:)``.
    ///
    /// ```swift
    /// try KeyPathSort(parsing: "published:desc")     // newest first
    /// try KeyPathSort(parsing: "customer.name:cd")   // through a reference, folded
    /// try KeyPathSort(parsing: "title:desc:localized")
    /// ```
    /// - Throws: ``RecordQueryError`` with code ``RecordQueryError/Code/invalidSort`` naming the
    ///   text and the problem: an empty or malformed key path, an unknown option, two directions
    ///   or two string orders.
    public init(parsing text: String) throws(RecordQueryError) {
        let parts = text.unicodeScalars.split(separator: ":", omittingEmptySubsequences: false).map { String(Substring($0)) }
        func invalid(_ problem: String) -> RecordQueryError {
            RecordQueryError(.invalidSort, "invalid sort key '\(text)': \(problem)")
        }
        guard let pathText = parts.first, !pathText.isEmpty else { throw invalid("the key path is empty") }
        do {
            self.init(try KeyValuePath(pathText))
        } catch {
            throw invalid(error.description)
        }
        var direction: String?
        var strings: String?
        for option in parts.dropFirst() {
            let word = option.lowercased()
            switch word {
            case "asc", "desc":
                if let direction { throw invalid("both '\(direction)' and '\(option)'; give one direction") }
                direction = option
                ascending = word == "asc"
            case "c", "d", "cd", "dc", "localized":
                if let strings { throw invalid("both '\(strings)' and '\(option)'; give one string order") }
                strings = option
                self.strings = Self.stringOrder(word)
            case "":
                throw invalid("an empty option; options follow single colons")
            default:
                throw invalid("unknown option '\(option)'; the options are asc, desc, c, d, cd and localized")
            }
        }
    }

    private static func stringOrder(_ word: String) -> StringOrder {
        switch word {
        case "localized": return .localized(.current)
        case "c": return .folded(.caseInsensitive)
        case "d": return .folded(.diacriticInsensitive)
        default: return .folded([.caseInsensitive, .diacriticInsensitive])
        }
    }
}
