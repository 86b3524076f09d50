import ArgumentParser
import KVStore

/// `kvstore set PATH REF KEYPATH VALUE`: sets one value, creating the store and the record when absent.
struct SetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Set the value at a key path of a record.",
        discussion: """
            VALUE is typed JSON, so a string needs its JSON quotes ('"Ada"'); null removes the \
            key (an error on a key holding a number, a bool or a date: use 'kvstore rm'). \
            Setting the value already stored changes nothing and journals nothing.

            Creates the store when nothing is at PATH (or PATH is an empty directory), and the \
            record when it does not exist, holding just that key (a dotted key path needs an existing \
            record). A negative number is read as VALUE; put '--' before any other VALUE that \
            starts with '-'.

            Examples:
              kvstore set ./store person/ada name '"Ada Lovelace"'
              kvstore set ./store person/ada address '{"city":"London"}'
              kvstore set ./store person/ada address.city '"Paris"'
              kvstore set ./store person/ada born '{"$date":"1815-12-10T00:00:00Z"}'
              kvstore set ./store invoice/7 customer '{"$ref":"person/ada"}'
              kvstore set ./store account/1 balance -25
            """
    )

    @OptionGroup var storePath: StorePathArgument<StoreCreatedWhenAbsent>

    @Argument(help: ArgumentHelp("The record, as KIND/ID (created when absent).", valueName: "ref"))
    var ref: String

    @Argument(help: ArgumentHelp("A key, or a dot-separated key path into nested dictionaries or references.", valueName: "keypath"))
    var keyPath: String

    @Argument(help: ArgumentHelp("The value, as typed JSON.", valueName: "value"))
    var value: String

    func run() throws {
        try reportingErrors {
            let ref = try Input.ref(ref)
            let parsedPath = try Input.storedKeyPath(keyPath)
            let value = try Input.value(value)
            var singleKey: String?
            if parsedPath.components.count == 1, case .key(let key) = parsedPath.components[0] { singleKey = key }
            let missingRecord = CommandError(
                value.isNull
                    ? "\(ref): no such record (setting null creates nothing)"
                    : "\(ref): no such record; set creates a record only for a single key, not for the key path '\(keyPath)'")
            let createsRecord = singleKey != nil && !value.isNull
            if !createsRecord && StoreDirectory.isEmpty(atPath: storePath.path) { throw missingRecord }
            let store = try StoreAccess.openCreating(storePath.path)
            try store.write { txn in
                let ref = try txn.resolvingUUIDSpelling(ref)  // a UUID id in either case
                if try txn.contains(ref) {
                    try txn.setValue(value, forKeyPath: keyPath, of: ref)
                } else if let singleKey, createsRecord {
                    try txn.insert([singleKey: value], as: ref)
                } else {
                    throw missingRecord
                }
            }
        }
    }
}
