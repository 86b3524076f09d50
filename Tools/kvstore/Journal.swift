import ArgumentParser

/// `kvstore journal …`: the store's change journal.
struct JournalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "journal",
        abstract: "List, follow, export, apply and truncate the store's change journal.",
        discussion: """
            Every change to a store appends journal entries in the same transaction as the data: \
            a sequence number, the commit it belongs to, a timestamp, the record, the key path, \
            the kind of change and the old and new values.

            Examples:
              kvstore journal list ./store
              kvstore journal list ./store --since 10 --limit 5 --format table
              kvstore journal list ./store --follow
              kvstore journal export ./store > changes.kvjs
              kvstore journal apply ./replica changes.kvjs
              kvstore journal truncate ./store --before 1000
              kvstore journal consumers ./store
            """,
        subcommands: [
            JournalListCommand.self, JournalExportCommand.self, JournalApplyCommand.self,
            JournalTruncateCommand.self, JournalConsumersCommand.self,
        ]
    )
}
