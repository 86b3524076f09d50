import ArgumentParser

/// `kvstore journal …`: the store's change journal.
struct JournalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "journal",
        abstract: "Read the store's change journal.",
        discussion: """
            Every change to a store appends journal entries in the same transaction as the data: \
            a sequence number, the commit it belongs to, a timestamp, the record, the key path, \
            the kind of change and the old and new values.

            Examples:
              kvstore journal list ./store
              kvstore journal list ./store --since 10 --limit 5 --format table
            """,
        subcommands: [JournalListCommand.self, JournalExportCommand.self, JournalApplyCommand.self]
    )
}
