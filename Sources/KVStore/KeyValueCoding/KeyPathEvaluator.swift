/// Where key-path evaluation reads the keys of records.
///
/// The store implements it over LMDB; tests implement it over a dictionary. Evaluation itself
/// (``KeyPathEvaluator``) does not know about storage.
package protocol KeyValueSource {
    /// The value of `key` in record `ref`, after the kind's undefined-key hook; nil when absent.
    ///
    /// A reference to a record that does not exist (a dangling reference) must give nil, not an
    /// error: a missing intermediate makes a key path nil.
    func value(forKey key: String, of ref: RecordRef) throws -> Value?
}

/// Evaluates a ``KeyValuePath`` against values, records and collections of records.
///
/// The rules, component by component (<doc:KeyValueCodingAndKinds>, after Foundation):
/// - a missing value, or `.null`, before the end of the path makes the result nil, not an error;
/// - a key reads a `.dictionary`'s entry, or a `.reference`'s record key through the source (so
///   the kind's hooks apply);
/// - a key on an `.array` applies the rest of the path, from this key on, to each element; an
///   element whose result is nil gives `.null`, and nested arrays stay nested (nothing is
///   flattened): `people.address.city` over `[ada, nobody]` is `["London", null]`;
/// - an operator on an `.array` applies to its elements, with the rest of the path as the right key
///   path read from each element (see ``CollectionOperator``); with no right path the elements
///   themselves are used: `scores.@sum`;
/// - an operator on a missing value or `.null` gives nil, except `@count` and `@sum` which give
///   `0`, as Foundation's messages to nil do; `@count` on a `.dictionary` is its number of
///   entries (NSDictionary's `count`); any other operator on a non-array is a
///   ``KeyValueCodingError/Code/notACollection`` error;
/// - a key on a bool, number, string, bytes or date is a ``KeyValueCodingError/Code/notAContainer``
///   error naming the key path up to there.
///
/// ```swift
/// let total = try KeyPathEvaluator.value(
///     forKeyPath: KeyValuePath("owner.invoices.@sum.amount"), of: project, source: store
/// )
/// ```
package enum KeyPathEvaluator {
    /// The value at `path`, starting from record `ref`: the first key is read through `source`.
    ///
    /// A ``KeyValueCodingError`` that names no record is attributed to `ref`.
    package static func value(
        forKeyPath path: KeyValuePath, of ref: RecordRef, source: some KeyValueSource
    ) throws -> Value? {
        do {
            return try value(at: path.components[...], in: .reference(ref), source: source, fullPath: path)
        } catch let error as KeyValueCodingError {
            throw error.attributed(to: ref)
        }
    }

    /// The value at `path` over a collection, such as `.reference`s to all records of a kind in id
    /// order: a path that starts with an operator applies it to the collection (`@count`,
    /// `@sum.amount`); a path that starts with a key maps the elements (`name` gives every name,
    /// nulls where missing).
    package static func value(
        forKeyPath path: KeyValuePath, ofCollection elements: [Value], source: some KeyValueSource
    ) throws -> Value? {
        try value(at: path.components[...], in: .array(elements), source: source, fullPath: path)
    }

    /// The value at the remaining components `path` of `fullPath`, starting from `value`.
    ///
    /// - Parameters:
    ///   - path: a slice of `fullPath.components` (its indices locate it in the full path, for
    ///     error messages); empty gives `value` back.
    ///   - value: where to start; nil when missing.
    ///   - fullPath: the whole key path, for error messages.
    package static func value(
        at path: ArraySlice<KeyValuePath.Component>,
        in value: Value?,
        source: some KeyValueSource,
        fullPath: KeyValuePath
    ) throws -> Value? {
        try Walk(source: source, fullPath: fullPath).value(at: path, in: value, isElement: false, depth: 0)
    }
}

/// One evaluation: the source, and the full path for error messages.
private struct Walk<Source: KeyValueSource> {
    let source: Source
    let fullPath: KeyValuePath
    /// The full path as written, for error messages and operators: made when one needs it (a
    /// query's scan evaluates key paths once per record; joining the text each time cost it about
    /// a tenth of its instructions).
    var fullText: String { fullPath.description }

    /// - Parameters:
    ///   - isElement: `value` is an element of the collection the path names so far.
    ///   - depth: the calls made so far, one per component and per array a key maps.
    func value(
        at path: ArraySlice<KeyValuePath.Component>, in value: Value?, isElement: Bool, depth: Int
    ) throws -> Value? {
        guard let component = path.first else { return value }
        guard depth < KeyValuePath.maximumDepth else { throw KeyValueCodingError.evaluatedTooDeeply(keyPath: fullText) }
        let rest = path.dropFirst(), depth = depth + 1
        switch (component, value) {
        case (.key, nil), (.key, .null?):
            return nil
        case (.operator(let op), nil), (.operator(let op), .null?):
            return op == .count || op == .sum ? .int(0) : nil
        case (.key, .array(let elements)?):
            return .array(try elements.map { try self.value(at: path, in: $0, isElement: true, depth: depth) ?? .null })
        case (.operator(let op), .array(let elements)?):
            return try op.apply(to: elements, keyPath: fullText) {
                try self.value(at: rest, in: $0, isElement: true, depth: depth)
            }
        case (.operator(.count), .dictionary(let dictionary)?):
            return .int(Int64(dictionary.count))  // Foundation: a dictionary's count of entries
        case (.key(let key), .dictionary(let dictionary)?):
            return try self.value(at: rest, in: dictionary[key], isElement: false, depth: depth)
        case (.key(let key), .reference(let ref)?):
            return try self.value(at: rest, in: source.value(forKey: key, of: ref), isElement: false, depth: depth)
        case (.key(let key), let other?):
            throw KeyValueCodingError.notAContainer(
                key: key, subject: subject(before: path, isElement: isElement), type: other.type, keyPath: fullText
            )
        case (.operator(let op), let other?):
            throw KeyValueCodingError.notACollection(
                op, subject: subject(before: path, isElement: isElement), type: other.type, keyPath: fullText
            )
        }
    }

    /// Names the value `path` starts from: `'address'`, `an element of 'items'`.
    private func subject(before path: ArraySlice<KeyValuePath.Component>, isElement: Bool) -> String {
        var prefix = fullPath.components[..<min(path.startIndex, fullPath.components.count)]
        // An element reached through an operator is an element of the collection left of it.
        if isElement, case .operator? = prefix.last { prefix = prefix.dropLast() }
        return KeyValueCodingError.subject(KeyValuePath.text(of: prefix), isElement: isElement)
    }
}
