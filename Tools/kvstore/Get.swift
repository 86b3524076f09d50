import ArgumentParser
import KVStore

/// `kvstore get PATH REF [KEYPATH]`: a record's values, or the value at one key path.
struct GetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Print a record's values, or the value at one key path, as typed JSON.",
        discussion: """
            Without KEYPATH, prints the record's values as one typed JSON object. With KEYPATH, \
            prints the value there: through nested dictionaries, through references to other \
            records, element-wise over arrays, and through collection operators (@count, @sum, \
            @avg, @max, @min, @unionOfObjects…). A key path with no value prints null. A missing \
            record is an error.

            Examples:
              kvstore get ./store person/ada
              kvstore get ./store person/ada address.city
              kvstore get ./store invoice/7 customer.name
              kvstore get ./store person/ada tags.@count
            """
    )

    @OptionGroup var storePath: StorePathArgument<ExistingStore>

    @Argument(help: ArgumentHelp("The record, as KIND/ID.", valueName: "ref"))
    var ref: String

    @Argument(help: ArgumentHelp("A dot-separated key path, e.g. address.city.", valueName: "keypath"))
    var keyPath: String?

    @Flag(help: "Indent the JSON over several lines.")
    var pretty = false

    func run() throws {
        try reportingErrors {
            let ref = try Input.ref(ref)
            if let keyPath { _ = try Input.keyPath(keyPath) }
            let store = try StoreAccess.openForReading(storePath.path)
            let value: Value = try store.read { txn in
                let ref = try txn.resolvingUUIDSpelling(ref)  // a UUID id in either case
                if let keyPath { return try txn.value(forKeyPath: keyPath, of: ref) ?? .null }
                guard let values = try txn.record(ref) else { throw KeyValueCodingError.recordNotFound(ref) }
                return .dictionary(values)
            }
            let output = StandardOutput()
            output.line(TypedJSON.string(from: value, pretty: pretty))
            try output.finish()
        }
    }
}
