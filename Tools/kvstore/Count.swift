import ArgumentParser
import KVStore

/// `kvstore count PATH KIND [PREDICATE] [--var NAME=VALUE]...`: how many records of a kind match.
struct CountCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "count",
        abstract: "Print how many records of a kind match a predicate.",
        discussion: """
            PREDICATE is as in 'kvstore query'; without one, every record of KIND counts (read \
            from the kind's counter, without a scan). Its $variables take their values from \
            --var NAME=VALUE, VALUE typed JSON. Prints one integer.

            Examples:
              kvstore count ./store item
              kvstore count ./store item "read == NO AND feed == \\$feed" --var feed='{"$ref":"feed/swift"}'
            """
    )

    @OptionGroup var storePath: StorePathArgument<ExistingStore>

    @Argument(help: ArgumentHelp("The kind whose records are counted.", valueName: "kind"))
    var kind: String

    @Argument(help: ArgumentHelp("A predicate; every record when absent.", valueName: "predicate"))
    var predicate: String?

    @OptionGroup var variables: PredicateVariables

    func run() throws {
        try reportingErrors {
            let kind = try Input.kind(kind)
            let (predicate, values) = try QueryInput.predicate(predicate, variables)
            let store = try StoreAccess.openForReading(storePath.path)
            let count = try store.count(ofKind: kind, where: predicate, variables: values)
            let output = StandardOutput()
            output.line(String(count))
            try output.finish()
        }
    }
}
