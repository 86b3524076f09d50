import ArgumentParser
import KVStore

/// `kvstore diff PATH_A PATH_B`: compares two stores' records.
struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Compare the records of two stores.",
        discussion: """
            Lists each difference on one line, in record order (kind, id, then key):
              only in A: KIND/ID
              only in B: KIND/ID
              differs: KIND/ID KEY: A <value> B <value>
            Values are typed JSON; (absent) marks a key a record lacks. Records whose stored \
            bytes are equal are not decoded, so large stores compare quickly. Only records are \
            compared, not journals or store ids.

            Exit status: 0 identical, 1 different, 2 an error (one line on standard error).

            Example:
              kvstore diff ./store ./replica
            """
    )

    @Argument(help: ArgumentHelp("The first store (A).", valueName: "path-a"))
    var pathA: String

    @Argument(help: ArgumentHelp("The second store (B).", valueName: "path-b"))
    var pathB: String

    func run() throws {
        var different = false
        try reportingErrors(status: 2) {
            let a = try StoreAccess.openForReading(pathA)
            let b = try StoreAccess.openForReading(pathB)
            let output = StandardOutput()
            try a.forEachDifference(from: b) { difference in
                different = true
                output.line(Self.line(for: difference))
                return true
            }
            try output.finish()
        }
        if different { throw ExitCode.failure }
    }

    static func line(for difference: RecordDifference) -> String {
        func text(_ value: Value?) -> String { value.map { TypedJSON.string(from: $0) } ?? "(absent)" }
        switch difference {
        case .onlyInFirst(let ref): return "only in A: \(ref)"
        case .onlyInSecond(let ref): return "only in B: \(ref)"
        case .valueDiffers(let ref, let key, let first, let second): return "differs: \(ref) \(key): A \(text(first)) B \(text(second))"
        }
    }
}
