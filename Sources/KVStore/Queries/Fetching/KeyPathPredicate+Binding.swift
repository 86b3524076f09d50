extension KeyPathPredicate {
    /// The predicate with each `$variable` of its comparisons (outside subqueries, whose own
    /// variables shadow the query's) replaced by its value when that is a scalar other than null:
    /// a comparison `title CONTAINS[c] $word` then reads as `title CONTAINS[c] "swift"`, which a
    /// residual filter compares without the general evaluator. The same results: the evaluator
    /// reads a bound variable as its value.
    func bindingScalarVariables(_ variables: [String: Value]) -> KeyPathPredicate {
        guard !variables.isEmpty else { return self }
        switch self {
        case .true, .false: return self
        case .and(let operands): return .and(operands.map { $0.bindingScalarVariables(variables) })
        case .or(let operands): return .or(operands.map { $0.bindingScalarVariables(variables) })
        case .not(let operand): return .not(operand.bindingScalarVariables(variables))
        case .comparison(var comparison):
            comparison.left = Self.bound(comparison.left, variables)
            comparison.right = Self.bound(comparison.right, variables)
            return .comparison(comparison)
        }
    }

    private static func bound(_ expression: KeyPathExpression, _ variables: [String: Value]) -> KeyPathExpression {
        guard case .variable(let name, keyPath: nil) = expression, let value = variables[name], !value.isNull,
              value.arrayValue == nil, value.dictionaryValue == nil else { return expression }
        return .constant(value)
    }
}
