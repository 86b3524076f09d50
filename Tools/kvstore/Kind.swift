import ArgumentParser
import KVStore

/// `kvstore kind PATH [KIND] [--open | --closed] [--key NAME[:TYPE]]...`: shows the store's kind
/// catalog, or changes one kind's declaration in it.
struct KindCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kind",
        abstract: "Show the store's kind catalog, or open or close a kind and declare its keys.",
        discussion: """
            The catalog holds each kind's rules, which every writer enforces — the library in \
            any process, set, rm, load, journal apply, replication and replay: open or closed, \
            a closed kind's keys and their types, its indexes, whether modification times are \
            tracked, and a schema version. Kinds it does not declare are open.

            Without --open, --closed or --key, prints the catalog (every declared kind, or KIND): \
            table (the default) writes aligned columns KIND, RULES, KEYS (NAME:TYPE, or NAME \
            for any type), INDEXES, TIMES, SCHEMA; json writes one object from each kind to \
            {"closed","keys","indexes","tracksModificationTimes","schemaVersion"}. The table of \
            every kind ends with the migrations applied to the store (an app's Migrator), in the \
            order they ran, when there are any: "applied migrations: v2, v3".

            --closed closes KIND with exactly the keys given by --key (none: it refuses every \
            key); --key alone adds keys to a closed kind, or changes their types; --open opens \
            it (its indexes, modification times and schema version stay). TYPE is one of bool, \
            int, double, string, bytes, date, array, dictionary, reference, null, or any (the \
            default). A change that the kind's records break — a key a record holds left out, a \
            type some record's value does not have — is refused, naming the first such record \
            and key, and nothing changes. The change is journaled (a kindDeclared entry), so \
            replicas and replays carry it.

            Examples:
              kvstore kind ./store
              kvstore kind ./store person --format json
              kvstore kind ./store person --closed --key name:string --key age:int --key notes
              kvstore kind ./store person --key email:string
              kvstore kind ./store person --open
            """
    )

    @OptionGroup var storePath: StorePathArgument<ExistingStore>

    @Argument(help: ArgumentHelp("The kind to show or change (default: show every declared kind).", valueName: "kind"))
    var kind: String?

    @Flag(help: "Close or open the kind.")
    var rule: KindRule?

    @Option(name: .customLong("key"), help: ArgumentHelp("A key the closed kind declares, with its type (any when left out).", valueName: "name[:type]"))
    var keys: [String] = []

    @Option(help: "The output format, when showing.")
    var format: KindFormat = .table

    func run() throws {
        try reportingErrors {
            let kind = try kind.map(Input.kind)
            let edit = try KindEdit(rule: rule, keys: keys)
            if let edit {
                guard let kind else { throw CommandError("--open, --closed and --key change one kind: name it (kvstore kind PATH KIND …)") }
                let store = try StoreAccess.openExisting(storePath.path)
                try store.write { txn in
                    let declared = try txn.declaredKind(named: kind) ?? Kind(kind)
                    try txn.declare(edit.applied(to: declared))
                }
                return
            }
            let store = try StoreAccess.openForReading(storePath.path)
            let (kinds, migrations) = try store.read { txn in
                guard let kind else { return (try txn.declaredKinds(), try txn.appliedMigrations()) }
                return ([try txn.declaredKind(named: kind) ?? Kind(kind)], [])
            }
            let output = StandardOutput()
            switch format {
            case .table: output.lines(KindListing.lines(kinds) + KindListing.migrationLines(migrations))
            case .json: output.line(TypedJSON.string(from: KindListing.json(kinds), pretty: true))
            }
            try output.finish()
        }
    }
}

/// `--open` or `--closed`.
enum KindRule: String, EnumerableFlag {
    case open, closed

    static func help(for value: KindRule) -> ArgumentHelp? {
        switch value {
        case .open: "Open the kind: any key may be set."
        case .closed: "Close the kind: only the keys given by --key may be set."
        }
    }
}

/// The output formats of `kvstore kind`.
enum KindFormat: String, CaseIterable, ExpressibleByArgument {
    /// Aligned columns, one row per kind.
    case table
    /// One pretty-printed typed JSON object, a key per kind.
    case json
}
