import Foundation
import KVStore

/// A value's typed JSON for the hub's `jsonb` column, refused when `jsonb` would not give the same
/// value back. `jsonb` keeps numbers as `numeric`, which has no exponent and no negative zero
/// (`1e+20` comes back `100000000000000000000`, an integer out of range; `-0.0` comes back
/// `0.0`), and it rejects U+0000 in strings; key order and spacing change, which typed JSON does
/// not mind.
enum HubValueText {
    /// The typed JSON of `value`, or the reason `jsonb` cannot hold it.
    static func encode(_ value: Value) -> Result<String, Problem> {
        if let problem = problem(in: value) { return .failure(problem) }
        return .success(TypedJSON.string(from: value))
    }

    struct Problem: Error {
        let description: String
    }

    /// The first part of `value` that `jsonb` would change, walking without recursion (values
    /// nest up to `TypedJSON.maxDepth` levels and more).
    private static func problem(in value: Value) -> Problem? {
        var pending = [value]
        while let next = pending.popLast() {
            switch next {
            case .double(let double) where double.isFinite:
                if double == 0, double.sign == .minus { return Problem(description: "-0.0 (jsonb keeps no negative zero)") }
                let text = TypedJSON.string(from: next)
                if text.contains("e+") || text.contains("E+") {
                    return Problem(description: "the double \(text) (jsonb would give it back as an integer)")
                }
            case .date:
                let text = TypedJSON.string(from: next)
                if !text.hasPrefix(#"{"$date":""#) {
                    return Problem(description: "the date \(text) (jsonb would not give its number of seconds back exactly)")
                }
            case .string(let string) where string.utf8.contains(0):
                return Problem(description: "a string containing U+0000 (jsonb cannot hold it)")
            case .array(let elements):
                pending.append(contentsOf: elements)
            case .dictionary(let dictionary):
                if dictionary.keys.contains(where: { $0.utf8.contains(0) }) {
                    return Problem(description: "a key containing U+0000 (jsonb cannot hold it)")
                }
                pending.append(contentsOf: dictionary.values)
            default:
                break
            }
        }
        return nil
    }
}
