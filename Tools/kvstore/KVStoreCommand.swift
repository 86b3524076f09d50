import ArgumentParser

/// `kvstore`: the command-line tool for kvstore stores (DESIGN §10). Scripts depend on its
/// commands, arguments and output formats.
@main
struct KVStoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kvstore",
        abstract: "Inspect and edit kvstore stores: embedded object stores on LMDB.",
        discussion: """
            A store is a directory. Records are addressed as KIND/ID (person/ada); values are \
            typed JSON: JSON, plus {"$date":"…"}, {"$bytes":"<base64>"}, {"$ref":"kind/id"} and \
            {"$double":"NaN"}. Every change is journaled.

            Errors are one line on standard error, starting 'kvstore: ', with exit status 1 \
            (64 for a mistake in the command line); bad input changes nothing.

            Examples:
              kvstore demo
              kvstore set ./store person/ada name '"Ada"'
              kvstore get ./store person/ada
              kvstore dump ./store --format table
              kvstore journal list ./store --since 10
            """,
        subcommands: [
            DemoCommand.self, GetCommand.self, SetCommand.self, RemoveCommand.self,
            DumpCommand.self, JournalCommand.self,
        ]
    )
}
