import ArgumentParser
import KVStore

/// `kvstore journal consumers PATH [--register NAME [--after SEQ]] [--unregister NAME] [--format jsonl|table]`.
struct JournalConsumersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "consumers",
        abstract: "List, register or unregister the store's durable journal consumers.",
        discussion: """
            A consumer is a named cursor stored in the store: the last journal sequence it has \
            processed. 'kvstore journal list PATH --consumer NAME [--follow]' reads after it and \
            commits it; truncation never drops what a consumer has not processed unless forced.

            Prints every consumer (after registering or unregistering one), in name order. jsonl \
            (the default) writes one object per line with the fields name, cursor, lag (the \
            journal's last sequence minus the cursor) and expired (the journal was truncated \
            past the cursor); table writes the columns NAME, CURSOR, LAG, EXPIRED.

            Examples:
              kvstore journal consumers ./store
              kvstore journal consumers ./store --register indexer --after 0
              kvstore journal consumers ./store --unregister indexer --format table
            """
    )

    @OptionGroup var storePath: StorePathArgument<ExistingStore>

    @Option(help: ArgumentHelp("Register a consumer of this name (printable, no whitespace, at most \(JournalConsumer.maxNameLength) bytes).", valueName: "name"))
    var register: String?

    @Option(help: ArgumentHelp("With --register: the consumer's starting cursor; it reads the entries after it (default: the last sequence, so only new entries; 0: the whole journal).", valueName: "seq"))
    var after: UInt64?

    @Option(help: ArgumentHelp("Unregister the consumer of this name: it no longer holds truncation back.", valueName: "name"))
    var unregister: String?

    @Option(help: "The output format.")
    var format: JournalFormat = .jsonl

    func validate() throws {
        if after != nil && register == nil { throw ValidationError("--after needs --register") }
        if register != nil && unregister != nil { throw ValidationError("--register and --unregister cannot be combined") }
    }

    func run() throws {
        try reportingErrors {
            let changing = register != nil || unregister != nil
            let store = try changing ? StoreAccess.openExisting(storePath.path) : StoreAccess.openForReading(storePath.path)
            if let register { try store.registerConsumer(named: register, startingAfter: after) }
            if let unregister { try store.consumer(named: unregister).unregister() }
            let output = StandardOutput()
            let consumers = try store.consumers()
            switch format {
            case .jsonl:
                for consumer in consumers {
                    output.line(TypedJSON.string(from: [
                        "name": .string(consumer.name), "cursor": .int(Int64(consumer.cursor)),
                        "lag": .int(Int64(consumer.lag)), "expired": .bool(consumer.isExpired),
                    ]))
                }
            case .table:
                var table = Table(header: ["NAME", "CURSOR", "LAG", "EXPIRED"])
                for consumer in consumers {
                    table.append([consumer.name, String(consumer.cursor), String(consumer.lag), consumer.isExpired ? "yes" : "no"])
                }
                output.lines(table.lines())
            }
            try output.finish()
        }
    }
}
