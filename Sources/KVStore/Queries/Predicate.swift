/// A condition on a record, in the NSPredicate format language over kvstore key paths.
///
/// Parse one from text with ``init(_:)``, or build it in Swift from the public cases; both give the
/// same value, and ``description`` prints text that parses back to it. A planner reads the cases
/// directly (``and(_:)`` and ``or(_:)`` keep their operands flat, as written).
///
/// ```swift
/// let unread = try KeyPathPredicate("feed.title ==[cd] $feed AND read == NO AND ANY tags IN {'swift', 'lmdb'}")
/// let same: KeyPathPredicate = .and([
///     .comparison(PredicateComparison(.keyPath(try KeyValuePath("age")), .greaterOrEqual, .constant(18))),
///     .not(.comparison(PredicateComparison(.keyPath(try KeyValuePath("name")), .beginsWith, .constant("A")))),
/// ])
/// print(same)  // age >= 18 AND NOT name BEGINSWITH "A"
/// ```
///
/// See <doc:PredicateLanguage> for the grammar and the evaluation rules.
public indirect enum KeyPathPredicate: Sendable, Hashable, CustomStringConvertible {
    /// `TRUEPREDICATE`: every record.
    case `true`
    /// `FALSEPREDICATE`: no record.
    case `false`
    /// `a AND b AND …`: all operands hold (an empty list holds).
    case and([KeyPathPredicate])
    /// `a OR b OR …`: some operand holds (an empty list does not).
    case or([KeyPathPredicate])
    /// `NOT a`.
    case not(KeyPathPredicate)
    /// A comparison of two expressions.
    case comparison(PredicateComparison)

    /// Parses a predicate in the NSPredicate format language.
    ///
    /// ```swift
    /// let p = try KeyPathPredicate("lines.@sum.amount >= 100 OR customer.city ==[c] 'oslo'")
    /// ```
    /// - Throws: ``KeyPathPredicateError`` naming the line, the column and what was expected.
    public init(_ format: String) throws(KeyPathPredicateError) {
        self = try PredicateParser.parse(format)
    }
}

/// `left op[options] right`, with an optional `ANY`/`ALL`/`NONE` on the left.
public struct PredicateComparison: Sendable, Hashable {
    /// `ANY`/`SOME`, `ALL` or `NONE` before the left expression; nil when none is written.
    public var quantifier: PredicateQuantifier?
    /// The left expression.
    public var left: KeyPathExpression
    /// The operator.
    public var `operator`: PredicateOperator
    /// The right expression.
    public var right: KeyPathExpression
    /// `[c]`, `[d]` or `[cd]`: how strings compare.
    public var options: StringComparisonOptions

    /// A comparison: `PredicateComparison(.keyPath(path), .equal, .constant("Oslo"), options: .caseInsensitive)`.
    public init(
        _ left: KeyPathExpression,
        _ operator: PredicateOperator,
        _ right: KeyPathExpression,
        options: StringComparisonOptions = [],
        quantifier: PredicateQuantifier? = nil
    ) {
        self.quantifier = quantifier
        self.left = left
        self.operator = `operator`
        self.right = right
        self.options = options
    }
}

/// A to-many qualifier on the left of a comparison.
public enum PredicateQuantifier: String, Sendable, Hashable, CaseIterable {
    /// `ANY` (or `SOME`): some element satisfies the comparison.
    case anyElement = "ANY"
    /// `ALL`: every element does (true for an empty collection).
    case everyElement = "ALL"
    /// `NONE`: no element does.
    case noElement = "NONE"
}

/// A comparison operator, as written in a predicate.
public enum PredicateOperator: String, Sendable, Hashable, CaseIterable {
    /// `==` or `=`.
    case equal = "=="
    /// `!=` or `<>`.
    case notEqual = "!="
    /// `<`.
    case less = "<"
    /// `<=` or `=<`.
    case lessOrEqual = "<="
    /// `>`.
    case greater = ">"
    /// `>=` or `=>`.
    case greaterOrEqual = ">="
    /// `BETWEEN {lo, hi}`: `lo <= left <= hi`.
    case between = "BETWEEN"
    /// `IN {…}`, `IN $list` or `IN keypath`: left equals an element of the right collection.
    case `in` = "IN"
    /// `BEGINSWITH`: a string prefix.
    case beginsWith = "BEGINSWITH"
    /// `ENDSWITH`: a string suffix.
    case endsWith = "ENDSWITH"
    /// `CONTAINS`: a substring.
    case contains = "CONTAINS"
    /// `LIKE`: a whole-string pattern where `*` matches any characters and `?` one.
    case like = "LIKE"
    /// `MATCHES`: a whole-string regular expression.
    case matches = "MATCHES"

    /// Whether the operator compares strings only (and takes `[c]`, `[d]`).
    var isStringOperator: Bool {
        switch self {
        case .beginsWith, .endsWith, .contains, .like, .matches: true
        default: false
        }
    }
}

/// `[c]`, `[d]`, `[cd]`: how a comparison treats strings.
public struct StringComparisonOptions: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `[c]`: letters compare without case, by Unicode case folding (`ß` matches `ss`).
    public static let caseInsensitive = StringComparisonOptions(rawValue: 1)
    /// `[d]`: letters compare without their combining marks (`é` matches `e`).
    public static let diacriticInsensitive = StringComparisonOptions(rawValue: 2)

    /// The options as written after an operator: `[cd]`, or empty.
    var text: String {
        guard !isEmpty else { return "" }
        return "[" + (contains(.caseInsensitive) ? "c" : "") + (contains(.diacriticInsensitive) ? "d" : "") + "]"
    }
}

/// One side of a comparison.
public indirect enum KeyPathExpression: Sendable, Hashable {
    /// A literal value: `"Oslo"`, `42`, `2.5`, `TRUE`, `nil`, `CAST('2024-01-01T00:00:00Z', 'NSDate')`.
    case constant(Value)
    /// A key path read from the record: `customer.city`, `lines.@sum.amount`.
    case keyPath(KeyValuePath)
    /// `$name`, or `$name.key.path`: a variable given at evaluation, or bound by a subquery.
    case variable(String, keyPath: KeyValuePath? = nil)
    /// `{a, b, …}`: a list of expressions.
    case list([KeyPathExpression])
    /// `SUBQUERY(collection, $x, predicate)`: the elements of the collection for which the
    /// predicate holds with `$x` bound to each, then an optional key path (`.@count`).
    case subquery(PredicateSubquery, keyPath: KeyValuePath? = nil)
}

/// `SUBQUERY(collection, $variable, predicate)`.
public struct PredicateSubquery: Sendable, Hashable {
    /// The collection filtered.
    public var collection: KeyPathExpression
    /// The variable bound to each element, without `$`.
    public var variable: String
    /// The condition each kept element meets.
    public var predicate: KeyPathPredicate

    /// `PredicateSubquery(collection: .keyPath(lines), variable: "l", predicate: p)`.
    public init(collection: KeyPathExpression, variable: String, predicate: KeyPathPredicate) {
        self.collection = collection
        self.variable = variable
        self.predicate = predicate
    }
}
