import ArgumentParser
import KVStore

/// The `--var NAME=VALUE` options of `query`, `count` and `value --where`: the values of the
/// predicate's `$variables`, as typed JSON.
struct PredicateVariables: ParsableArguments {
    @Option(
        name: .customLong("var"),
        help: ArgumentHelp(
            "The value of the predicate's $NAME, as typed JSON (repeatable): --var min=100, --var feed='{\"$ref\":\"feed/1\"}'.",
            valueName: "name=value"))
    var assignments: [String] = []
}

/// Parsing of the query arguments: predicates, `--var`s and sort keys. Each is checked before the
/// store is opened, so bad input changes nothing and names itself in one line.
enum QueryInput {
    /// The predicate `text` (every record when nil), with its variables bound by `assignments`.
    /// - Throws: `invalid predicate: … at line L, column C`; an invalid `--var`; a `$variable` that
    ///   no `--var` gives.
    static func predicate(_ text: String?, _ variables: PredicateVariables) throws -> (KeyPathPredicate, [String: Value]) {
        let predicate: KeyPathPredicate
        do {
            predicate = try text.map(KeyPathPredicate.init) ?? .true
        } catch {
            throw CommandError("invalid predicate: \(error)")
        }
        let values = try self.variables(variables.assignments)
        if let name = predicate.firstUnboundVariable(given: Set(values.keys)) {
            throw CommandError("the predicate's $\(name) has no value; give it with --var \(name)=VALUE")
        }
        return (predicate, values)
    }

    /// `NAME=VALUE` pairs, VALUE typed JSON.
    static func variables(_ assignments: [String]) throws -> [String: Value] {
        var values: [String: Value] = [:]
        for assignment in assignments {
            guard let equals = assignment.firstIndex(of: "="), equals != assignment.startIndex else {
                throw CommandError("invalid --var '\(assignment)': expected NAME=VALUE, VALUE typed JSON (--var min=100)")
            }
            var name = String(assignment[..<equals])
            if name.hasPrefix("$") { name.removeFirst() }  // `--var '$min=100'` names $min too
            do {
                values[name] = try Input.value(String(assignment[assignment.index(after: equals)...]))
            } catch {
                throw CommandError("invalid --var '\(name)': \(error)")
            }
        }
        return values
    }
}
