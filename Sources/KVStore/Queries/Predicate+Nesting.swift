/// The nesting cap, for predicates built in Swift.
extension KeyPathPredicate {
    /// Throws when the predicate nests deeper than ``maximumNesting``, counted as the parser
    /// counts its text: a `NOT`, a list and an AND or OR inside another or inside `NOT` (which
    /// the text puts in parentheses) each cost a level, a subquery ``subqueryNestingCost``. Every
    /// parsed predicate passes; one built in Swift may not, and evaluating it would recurse past
    /// the end of the stack. Walks the value with a stack of its own.
    func checkNesting() throws(KeyPathPredicateError) {
        enum Node {
            case predicate(KeyPathPredicate, inCompound: Bool)
            case expression(KeyPathExpression)
        }
        var pending: [(node: Node, outerDepth: Int)] = [(.predicate(self, inCompound: false), 0)]
        while let (node, outerDepth) = pending.popLast() {
            var depth = outerDepth
            var inner: [Node] = []
            switch node {
            case .predicate(.and(let operands), let inCompound), .predicate(.or(let operands), let inCompound):
                depth += inCompound ? 1 : 0
                inner = operands.map { .predicate($0, inCompound: true) }
            case .predicate(.not(let operand), _):
                depth += 1
                inner = [.predicate(operand, inCompound: true)]
            case .predicate(.comparison(let comparison), _):
                inner = [.expression(comparison.left), .expression(comparison.right)]
            case .predicate:
                break
            case .expression(.list(let elements)):
                depth += 1
                inner = elements.map { .expression($0) }
            case .expression(.subquery(let subquery, _)):
                depth += Self.subqueryNestingCost
                inner = [.expression(subquery.collection), .predicate(subquery.predicate, inCompound: false)]
            case .expression:
                break
            }
            guard depth <= Self.maximumNesting else {
                throw KeyPathPredicateError(.nestedTooDeeply, "the predicate nests deeper than \(Self.maximumNesting) levels")
            }
            pending += inner.map { ($0, depth) }
        }
    }
}
