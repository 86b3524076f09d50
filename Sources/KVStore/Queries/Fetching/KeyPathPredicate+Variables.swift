extension KeyPathPredicate {
    /// The first `$variable` the predicate uses (outside the subqueries that bind it) that is not in
    /// `names`; nil when every one has a value. The `kvstore` tool checks `--var`s with it before it
    /// opens the store.
    package func firstUnboundVariable(given names: Set<String>) -> String? {
        unboundVariable(names)
    }
}
