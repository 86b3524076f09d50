import Foundation

/// The arguments the lag measurements share: `--commits N`, `--interval-ms M`, `--dir PATH`,
/// with a hook for a mode's own options.
struct LagArguments {
    var commits = 2_000
    var interval = 3.0
    var directory = FileManager.default.temporaryDirectory.path

    /// Parses `arguments`; an argument it does not know goes to `other` with the rest of the
    /// iterator (it takes its value from there), which throws when it does not know it either.
    init(_ arguments: [String], other: (String, inout IndexingIterator<[String]>) throws -> Void) throws {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--commits":
                guard let n = iterator.next().flatMap(Int.init), n > 0 else { throw UsageError("--commits needs a positive number") }
                commits = n
            case "--interval-ms":
                guard let ms = iterator.next().flatMap(Double.init), ms >= 0 else { throw UsageError("--interval-ms needs a number") }
                interval = ms
            case "--dir":
                guard let path = iterator.next() else { throw UsageError("--dir needs a path") }
                directory = path
            default: try other(argument, &iterator)
            }
        }
    }
}
