import ArgumentParser
import KVStore

/// `kvstore value PATH KIND KEYPATH [--where PREDICATE]`: a key path over the records of a kind.
struct ValueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "value",
        abstract: "Print the value of a key path over all records of a kind, as typed JSON.",
        discussion: """
            A KEYPATH that starts with a collection operator applies it to the kind's records, \
            in id order, reading the rest of the path from each: @count, @sum.amount, \
            @avg.amount, @max.born, @min.born, @unionOfObjects.city, \
            @distinctUnionOfObjects.city. A KEYPATH that starts with a key gives an array of \
            each record's value (null where missing). A kind without records is an empty \
            collection, as in 'kvstore dump --kind': @count and @sum give 0, @avg, @max and \
            @min give null, a key gives [].

            @count reads a counter; the other operators read the records one at a time.

            With --where PREDICATE (as in 'kvstore query'), the collection is the records that \
            match it, still in id order; its $variables take their values from --var \
            NAME=VALUE.

            Examples:
              kvstore value ./store invoice @count
              kvstore value ./store invoice @sum.amount
              kvstore value ./store person @distinctUnionOfObjects.address.city
              kvstore value ./store invoice customer.name
              kvstore value ./store invoice @sum.amount --where "paid == NO"
            """
    )

    @OptionGroup var storePath: StorePathArgument<ExistingStore>

    @Argument(help: ArgumentHelp("The kind whose records form the collection.", valueName: "kind"))
    var kind: String

    @Argument(help: ArgumentHelp("A key path, e.g. @sum.amount.", valueName: "keypath"))
    var keyPath: String

    @Flag(help: "Indent the JSON over several lines.")
    var pretty = false

    @Option(name: .customLong("where"), help: ArgumentHelp("Only the records that match this predicate.", valueName: "predicate"))
    var predicate: String?

    @OptionGroup var variables: PredicateVariables

    func run() throws {
        try reportingErrors {
            let kind = try Input.kind(kind)
            _ = try Input.keyPath(keyPath)
            let (predicate, values) = try QueryInput.predicate(predicate, variables)
            let store = try StoreAccess.openForReading(storePath.path)
            let value = try store.read { txn in
                guard self.predicate != nil else { return try txn.value(forKeyPath: keyPath, ofKind: kind) }
                return try txn.value(forKeyPath: keyPath, matching: RecordQuery(kind: kind, where: predicate, variables: values))
            } ?? .null
            let output = StandardOutput()
            output.line(TypedJSON.string(from: value, pretty: pretty))
            try output.finish()
        }
    }
}
