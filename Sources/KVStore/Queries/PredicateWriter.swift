/// Writes predicates and expressions as text with a stack of pieces still to write instead of
/// recursion: a value built in Swift may nest 100,000 levels deep, and recursing that deep
/// overflows a thread's stack.
enum PredicateWriter {
    /// Something still to write.
    enum Piece {
        case text(String)
        /// A predicate; as an operand of AND, OR or NOT a compound one is put in parentheses.
        case predicate(KeyPathPredicate, operand: Bool)
        case comparison(PredicateComparison)
        case expression(KeyPathExpression)
    }

    /// The text of `piece`.
    static func text(of piece: Piece) -> String {
        var pending = [piece]
        var output = ""
        while let piece = pending.popLast() {
            switch piece {
            case .text(let text): output += text
            case .predicate(let predicate, let operand): pending += pieces(of: predicate, operand: operand).reversed()
            case .comparison(let comparison): pending += pieces(of: comparison).reversed()
            case .expression(let expression): pending += pieces(of: expression).reversed()
            }
        }
        return output
    }

    private static func pieces(of predicate: KeyPathPredicate, operand: Bool) -> [Piece] {
        switch predicate {
        case .true: [.text("TRUEPREDICATE")]
        case .false: [.text("FALSEPREDICATE")]
        case .and(let operands): compound(operands, "AND", empty: "TRUEPREDICATE", operand: operand)
        case .or(let operands): compound(operands, "OR", empty: "FALSEPREDICATE", operand: operand)
        case .not(let operand): [.text("NOT "), .predicate(operand, operand: true)]
        case .comparison(let comparison): [.comparison(comparison)]
        }
    }

    /// Operands joined by `word`; one operand alone, none as `empty`.
    private static func compound(_ operands: [KeyPathPredicate], _ word: String, empty: String, operand: Bool) -> [Piece] {
        var pieces: [Piece] = switch operands.count {
        case 0: [.text(empty)]
        case 1: [.predicate(operands[0], operand: false)]
        default: operands.indices.flatMap { index -> [Piece] in
            (index == 0 ? [] : [.text(" \(word) ")]) + [.predicate(operands[index], operand: true)]
        }
        }
        if operand { pieces = [.text("(")] + pieces + [.text(")")] }
        return pieces
    }

    private static func pieces(of comparison: PredicateComparison) -> [Piece] {
        [
            .text(comparison.quantifier.map { "\($0.rawValue) " } ?? ""), .expression(comparison.left),
            .text(" \(comparison.operator.rawValue)\(comparison.options.text) "), .expression(comparison.right),
        ]
    }

    private static func pieces(of expression: KeyPathExpression) -> [Piece] {
        switch expression {
        case .constant(let value):
            return [.text(PredicateLiteral.text(of: value))]
        case .keyPath(let path):
            return [.text(PredicateLiteral.text(of: path))]
        case .variable(let name, let path):
            return [.text(PredicateLiteral.text(ofVariable: name) + suffix(path))]
        case .list(let elements):
            let inner = elements.indices.flatMap { index -> [Piece] in
                (index == 0 ? [] : [.text(", ")]) + [.expression(elements[index])]
            }
            return [.text("{")] + inner + [.text("}")]
        case .subquery(let subquery, let path):
            return [
                .text("SUBQUERY("), .expression(subquery.collection),
                .text(", \(PredicateLiteral.text(ofVariable: subquery.variable)), "),
                .predicate(subquery.predicate, operand: false), .text(")" + suffix(path)),
            ]
        }
    }

    /// `.key.path` after a variable or a subquery, or nothing.
    private static func suffix(_ path: KeyValuePath?) -> String {
        path.map { "." + PredicateLiteral.text(of: $0) } ?? ""
    }
}
