/// Evaluating predicates (<doc:PredicateLanguage>).
extension ReadTransaction {
    /// Whether the record satisfies the predicate, reading its key paths in this transaction
    /// (through dictionaries, arrays, references to other records and collection operators).
    ///
    /// ```swift
    /// let big = try KeyPathPredicate("lines.@sum.amount >= $minimum AND customer.city ==[cd] 'oslo'")
    /// let matches = try store.read { txn in
    ///     try txn.evaluate(big, on: invoice, variables: ["minimum": 100])
    /// }
    /// ```
    ///
    /// A missing key, a dangling reference or a type mismatch makes a comparison false, never an
    /// error.
    /// - Parameters:
    ///   - predicate: the condition, parsed or built in Swift.
    ///   - ref: the record it is evaluated on.
    ///   - variables: the values of the predicate's `$variables`.
    /// - Throws: ``KeyPathPredicateError`` for a predicate built in Swift that nests deeper than
    ///   ``KeyPathPredicate/maximumNesting`` or a `$variable` not in `variables` (both checked
    ///   before anything is read), and for a `MATCHES` pattern that is not a regular expression
    ///   or takes too many steps to match a value;
    ///   ``KeyValueCodingError/Code/recordNotFound`` when there is no record `ref`; and what a
    ///   kind's `valueForUndefinedKey` hook throws.
    public func evaluate(_ predicate: KeyPathPredicate, on ref: RecordRef, variables: [String: Value] = [:]) throws -> Bool {
        try predicate.checkNesting()
        if let name = predicate.unboundVariable(Set(variables.keys)) {
            throw PredicateEvaluator<TransactionSource>.unbound(name)
        }
        guard try contains(ref) else { throw KeyValueCodingError.recordNotFound(ref) }
        let evaluator = PredicateEvaluator(source: TransactionSource(transaction: self), record: ref, variables: variables)
        return try evaluator.holds(predicate)
    }
}
