/// The predicate a plan's candidates must still satisfy, evaluated on one candidate after another
/// (``CurrentCandidate``).
///
/// One ``PredicateEvaluator`` serves the whole query: it starts its key paths from the candidate's
/// stand-in reference, which ``CandidateValues`` reads as whichever candidate is current, so
/// nothing is allocated per candidate and a `MATCHES` pattern is compiled once per query. (The
/// predicate language has no `SELF`, so the stand-in itself is never a value a predicate compares.)
///
/// The commonest comparison, a top-level key against a scalar literal (`read == NO`,
/// `score >= 10`, `title BEGINSWITH[c] 'swift'`), skips the evaluator's general machinery: the key
/// is read and compared with the evaluator's own ``PredicateComparator``. A value that is an array
/// (compared element by element) goes to the evaluator. Everything else is the evaluator's.
final class ResidualFilter {
    private indirect enum Node {
        case constant(Bool)
        case and([Node])
        case or([Node])
        case not(Node)
        /// `key op literal`, no quantifier: the comparison in full, for a value that is an array.
        case keyComparison(key: String, PredicateComparator, literal: Value, whole: KeyPathPredicate)
        case general(KeyPathPredicate)
    }

    private let root: Node
    private let evaluator: PredicateEvaluator<CandidateValues>
    private let values: CandidateValues

    init(_ predicate: KeyPathPredicate, variables: [String: Value], values: CandidateValues) {
        root = Self.compile(predicate)
        evaluator = PredicateEvaluator(source: values, record: values.current.standIn, variables: variables)
        self.values = values
    }

    /// Whether the predicate holds for the current candidate.
    func holds() throws -> Bool {
        values.statistics.evaluated += 1
        return try holds(root)
    }

    private func holds(_ node: Node) throws -> Bool {
        switch node {
        case .constant(let value): return value
        case .and(let operands): return try operands.allSatisfy(holds)
        case .or(let operands): return try operands.contains(where: holds)
        case .not(let operand): return try !holds(operand)
        case .general(let predicate): return try evaluator.holds(predicate)
        case .keyComparison(let key, let comparator, let literal, let whole):
            let value = try values.lenientValue(forKey: key)  // as the evaluator reads a key path
            if case .array? = value { return try evaluator.holds(whole) }
            return try comparator.holds(value, literal)
        }
    }

    private static func compile(_ predicate: KeyPathPredicate) -> Node {
        switch predicate {
        case .true: return .constant(true)
        case .false: return .constant(false)
        case .and(let operands): return .and(operands.map(compile))
        case .or(let operands): return .or(operands.map(compile))
        case .not(let operand): return .not(compile(operand))
        case .comparison(let comparison):
            guard comparison.quantifier == nil,
                  case .keyPath(let path) = comparison.left, path.components.count == 1, let key = path.firstKey,
                  case .constant(let literal) = comparison.right, !literal.isNull, literal.arrayValue == nil,
                  ![.matches, .between, .in].contains(comparison.operator) else { return .general(predicate) }
            let comparator = PredicateComparator(op: comparison.operator, options: comparison.options, regularExpression: nil)
            return .keyComparison(key: key, comparator, literal: literal, whole: predicate)
        }
    }
}
