import ArgumentParser
import KVStore

/// `kvstore rm PATH REF [KEYPATH]`: deletes a record, or removes one key from it.
struct RemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm",
        abstract: "Delete a record, or remove the value at a key path from it.",
        discussion: """
            Without KEYPATH, deletes the record (the journal keeps its values). With KEYPATH, \
            removes that key, or the key at the end of a dotted path into nested dictionaries. \
            A missing record is an error; removing a key the record does not hold does nothing.

            Examples:
              kvstore rm ./store person/ada
              kvstore rm ./store person/ada nickname
              kvstore rm ./store person/ada address.zip
            """
    )

    @OptionGroup var storePath: StorePathArgument<ExistingStore>

    @Argument(help: ArgumentHelp("The record, as KIND/ID.", valueName: "ref"))
    var ref: String

    @Argument(help: ArgumentHelp("The key (or dot-separated key path) to remove.", valueName: "keypath"))
    var keyPath: String?

    func run() throws {
        try reportingErrors {
            let ref = try Input.ref(ref)
            if let keyPath { _ = try Input.storedKeyPath(keyPath) }  // checked before the store is opened
            let store = try StoreAccess.openExisting(storePath.path)
            try store.write { txn in
                let ref = try txn.resolvingUUIDSpelling(ref)  // a UUID id in either case
                guard let keyPath else { return try txn.delete(ref) }
                try txn.removeValue(forKeyPath: keyPath, of: ref)
            }
        }
    }
}
