/// A key-value-coding failure: a malformed key path, a collection operator given the wrong values,
/// an undefined key of a closed kind, a value its kind refuses, and so on.
///
/// Switch on ``code`` to react to a kind of failure; show ``description`` to a person. The
/// description is one line, prefixed by the record when there is one:
///
/// ```swift
/// do {
///     try store.setValue(nil, forKey: "age", of: ada)
/// } catch let error as KeyValueCodingError where error.code == .nilForScalar {
///     print(error)
///     // person/ada: cannot set nil for scalar key 'age' (int); give the kind a setNilValueForKey hook to allow it
/// }
/// ```
public struct KeyValueCodingError: Error, Sendable, CustomStringConvertible, Equatable {
    /// What went wrong, for callers that react to some failures and report the others.
    public enum Code: String, Sendable, CaseIterable {
        /// A key path that does not parse: empty, an empty component, `@` without a name.
        case invalidKeyPath
        /// `@name` where `name` is not one of ``CollectionOperator``'s cases.
        case unknownOperator
        /// A collection operator applied to something that is not an array.
        case notACollection
        /// A key read from (or set into) a value that has no keys: a number, a string, bytes…
        case notAContainer
        /// `@sum` or `@avg` over a value that is not a number.
        case nonNumeric
        /// `@max` or `@min` over values that cannot be ordered together.
        case incomparable
        /// An exact integer result that does not fit in `Int64`.
        case arithmeticOverflow
        /// A key that a closed kind does not declare.
        case undefinedKey
        /// Nil set for a key that holds, or is declared as, a scalar, with no hook to handle it.
        case nilForScalar
        /// A value whose type differs from the type its kind declares for the key.
        case typeMismatch
        /// A value the kind's validation rejected.
        case validationFailed
        /// No record with this reference.
        case recordNotFound
        /// A record with this reference already exists.
        case recordExists
        /// A set through a key path whose intermediate dictionary is missing.
        case missingIntermediate
        /// An index outside an array, in a collection mutation.
        case indexOutOfRange
        /// A write that would nest a record's arrays and dictionaries deeper than
        /// ``KeyValueCodingError/maximumRecordNesting`` levels, or a key path evaluation that
        /// would go deeper than 1,024 levels of values (through references to nested arrays).
        case nestedTooDeeply
        /// A write that would make a record larger than ``KeyValueCodingError/maximumRecordSize``,
        /// or one change's journal entry larger than a journal stream frame.
        case tooLarge
        /// A write that would give two records of a kind the same values in a unique index.
        case uniqueViolation
    }

    /// What went wrong.
    public let code: Code
    /// What went wrong, for a person, without the record prefix (see ``description``).
    public let message: String
    /// The key path (or key) involved, as written.
    public let keyPath: String?
    /// The record involved.
    public let ref: RecordRef?

    /// An error with `code` and `message`, naming the key path and record when there are some; the
    /// static functions below make the store's own errors.
    public init(code: Code, message: String, keyPath: String? = nil, ref: RecordRef? = nil) {
        self.code = code
        self.message = message
        self.keyPath = keyPath
        self.ref = ref
    }

    /// `kind/id: message`, or the message alone when no record is involved.
    public var description: String {
        guard let ref else { return message }
        return "\(ref): \(message)"
    }

    /// This error, attributed to `ref` unless it already names a record.
    package func attributed(to ref: RecordRef) -> Self {
        guard self.ref == nil else { return self }
        return Self(code: code, message: message, keyPath: keyPath, ref: ref)
    }
}

// MARK: - Key paths and collection operators

extension KeyValueCodingError {
    /// A key path that does not parse.
    package static func invalidKeyPath(_ keyPath: String, problem: String) -> Self {
        Self(code: .invalidKeyPath, message: "invalid key path '\(keyPath)': \(problem)", keyPath: keyPath)
    }

    /// `@name` with a name that is not a collection operator.
    package static func unknownOperator(_ name: String, keyPath: String) -> Self {
        var message = "unknown collection operator '@\(name)' in key path '\(keyPath)'"
        if let near = CollectionOperator.allCases.first(where: { $0.rawValue.lowercased() == name.lowercased() }) {
            message += " (did you mean \(near)?)"
        }
        message += "; valid operators: \(CollectionOperator.list)"
        return Self(code: .unknownOperator, message: message, keyPath: keyPath)
    }

    /// A collection operator applied to a value that is not an array.
    /// - Parameter subject: what holds the value, e.g. `'title'` (see ``subject(_:isElement:)``).
    package static func notACollection(
        _ op: CollectionOperator, subject: String, type: ValueType, keyPath: String
    ) -> Self {
        Self(
            code: .notACollection,
            message: "collection operator \(op) needs a collection, \(subject) is \(type.withArticle)"
                + Self.inPath(keyPath),
            keyPath: keyPath
        )
    }

    /// A key read from a value that has no keys.
    package static func notAContainer(key: String, subject: String, type: ValueType, keyPath: String) -> Self {
        Self(
            code: .notAContainer,
            message: "cannot read key '\(key)': \(subject) is \(type.withArticle), not a dictionary or record"
                + Self.inPath(keyPath),
            keyPath: keyPath
        )
    }

    /// `@sum` or `@avg` over a value that is not a number.
    package static func nonNumeric(_ op: CollectionOperator, type: ValueType, keyPath: String) -> Self {
        Self(
            code: .nonNumeric,
            message: "collection operator \(op) needs numbers, found \(type.withArticle)" + Self.inPath(keyPath),
            keyPath: keyPath
        )
    }

    /// `@max` or `@min` over a value of a type it cannot order (`earlier` nil), or a value that does
    /// not order with an earlier one.
    package static func incomparable(
        _ op: CollectionOperator, _ type: ValueType, with earlier: ValueType? = nil, keyPath: String
    ) -> Self {
        let what = earlier.map { "cannot compare \($0.withArticle) with \(type.withArticle)" }
            ?? "cannot order \(type.withArticle)"
        return Self(
            code: .incomparable,
            message: "collection operator \(op) \(what); it orders ints and doubles together, strings, or dates"
                + Self.inPath(keyPath),
            keyPath: keyPath
        )
    }

    /// An integer result that does not fit in `Int64`.
    package static func arithmeticOverflow(_ op: CollectionOperator, keyPath: String) -> Self {
        Self(
            code: .arithmeticOverflow,
            message: "collection operator \(op) overflows: the exact integer result does not fit in a 64-bit int"
                + Self.inPath(keyPath),
            keyPath: keyPath
        )
    }

    /// Names what holds a value in an error message: `'address'`, `an element of 'items'`, `the value`.
    package static func subject(_ keyPathPrefix: String, isElement: Bool) -> String {
        switch (keyPathPrefix.isEmpty, isElement) {
        case (true, true): "an element of the collection"
        case (true, false): "the value"
        case (false, true): "an element of '\(keyPathPrefix)'"
        case (false, false): "'\(keyPathPrefix)'"
        }
    }

    private static func inPath(_ keyPath: String) -> String {
        keyPath.isEmpty ? "" : " (key path '\(keyPath)')"
    }
}

// MARK: - Records and kinds

extension KeyValueCodingError {
    /// A key that a closed kind does not declare, read (`writing: false`) or set (`writing: true`).
    ///
    /// ```swift
    /// throw KeyValueCodingError.undefinedKey("agee", kind: "person", ref: ada)
    /// // person/ada: undefined key 'agee' of closed kind 'person'; declare it or give the kind a valueForUndefinedKey hook
    /// ```
    public static func undefinedKey(
        _ key: String, kind: String, ref: RecordRef? = nil, writing: Bool = false
    ) -> Self {
        let hook = writing ? "setValue(_:forUndefinedKey:)" : "valueForUndefinedKey"
        return Self(
            code: .undefinedKey,
            message: "undefined key '\(key)' of closed kind '\(kind)'; declare it or give the kind a \(hook) hook",
            keyPath: key,
            ref: ref
        )
    }

    /// Nil set for a key that holds, or is declared as, a scalar.
    ///
    /// ```swift
    /// throw KeyValueCodingError.nilForScalar(key: "age", type: .int, ref: ada)
    /// // person/ada: cannot set nil for scalar key 'age' (int); give the kind a setNilValueForKey hook to allow it
    /// ```
    public static func nilForScalar(key: String, type: ValueType, ref: RecordRef? = nil) -> Self {
        Self(
            code: .nilForScalar,
            message: "cannot set nil for scalar key '\(key)' (\(type)); give the kind a setNilValueForKey hook to allow it",
            keyPath: key,
            ref: ref
        )
    }

    /// A value whose type differs from the declared one.
    ///
    /// ```swift
    /// throw KeyValueCodingError.typeMismatch(key: "age", declared: .int, given: .string, ref: ada)
    /// // person/ada: key 'age' is declared int, cannot set a string
    /// ```
    public static func typeMismatch(
        key: String, declared: ValueType, given: ValueType, ref: RecordRef? = nil
    ) -> Self {
        Self(
            code: .typeMismatch,
            message: "key '\(key)' is declared \(declared), cannot set \(given.withArticle)",
            keyPath: key,
            ref: ref
        )
    }

    /// A value the kind's validation rejected; `reason` says why, for a person.
    ///
    /// ```swift
    /// throw KeyValueCodingError.validationFailed(key: "email", reason: "no '@' in 'ada'")
    /// // invalid value for key 'email': no '@' in 'ada'
    /// ```
    public static func validationFailed(key: String, reason: String, ref: RecordRef? = nil) -> Self {
        Self(code: .validationFailed, message: "invalid value for key '\(key)': \(reason)", keyPath: key, ref: ref)
    }

    /// No record with this reference.
    public static func recordNotFound(_ ref: RecordRef) -> Self {
        Self(code: .recordNotFound, message: "no such record", ref: ref)
    }

    /// A record with this reference already exists.
    public static func recordExists(_ ref: RecordRef) -> Self {
        Self(code: .recordExists, message: "a record with this id already exists", ref: ref)
    }

    /// How many levels of arrays and dictionaries a record may nest, counting the record itself:
    /// one fewer than the decoders' limit of 512, because a journal entry holds the record one level
    /// deeper. Deeper writes fail with ``Code/nestedTooDeeply`` before anything is written, so a
    /// stored record and its journal entry always decode.
    public static let maximumRecordNesting = 511

    /// A write that would nest the record `levels` deep, past ``maximumRecordNesting``.
    ///
    /// ```swift
    /// throw KeyValueCodingError.nestedTooDeeply(levels: 600, keyPath: "tree", ref: ada)
    /// // person/ada: cannot write 'tree': the record would nest 600 levels of arrays and dictionaries, more than 511
    /// ```
    public static func nestedTooDeeply(levels: Int, keyPath: String?, ref: RecordRef? = nil) -> Self {
        let subject = keyPath.map { "write '\($0)'" } ?? "insert the record"
        return Self(
            code: .nestedTooDeeply,
            message: "cannot \(subject): the record would nest \(levels) levels of arrays and dictionaries, more than \(maximumRecordNesting)",
            keyPath: keyPath,
            ref: ref
        )
    }

    /// A set through `keyPath` whose intermediate dictionary at `missing` does not exist.
    ///
    /// ```swift
    /// throw KeyValueCodingError.missingIntermediate(keyPath: "address.city", missing: "address", ref: ada)
    /// // person/ada: cannot set 'address.city': there is no dictionary at 'address'; set one there first
    /// ```
    public static func missingIntermediate(keyPath: String, missing: String, ref: RecordRef? = nil) -> Self {
        Self(
            code: .missingIntermediate,
            message: "cannot set '\(keyPath)': there is no dictionary at '\(missing)'; set one there first",
            keyPath: keyPath,
            ref: ref
        )
    }

    /// An index outside the array at `key`, which has `count` elements.
    ///
    /// ```swift
    /// throw KeyValueCodingError.indexOutOfRange(5, count: 3, key: "tags", ref: ada)
    /// // person/ada: index 5 is out of range for 'tags', which has 3 elements
    /// ```
    public static func indexOutOfRange(_ index: Int, count: Int, key: String, ref: RecordRef? = nil) -> Self {
        let elements = count == 1 ? "1 element" : "\(count) elements"
        return Self(
            code: .indexOutOfRange,
            message: "index \(index) is out of range for '\(key)', which has \(elements)",
            keyPath: key,
            ref: ref
        )
    }
}

extension ValueType {
    /// `a string`, `an int`, `bytes`, `null`: the type as a noun phrase in a message.
    package var withArticle: String {
        switch self {
        case .null, .bytes: rawValue
        case .int, .array: "an \(rawValue)"
        default: "a \(rawValue)"
        }
    }
}
