import ArgumentParser
import Foundation
import KVStore

/// `kvstore replay PATH --into NEWPATH [--until SEQ | --until-time ISO8601]`.
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Rebuild a store as it was at a point in time, from its journal.",
        discussion: """
            Applies PATH's journal from its first entry into a new store at NEWPATH (nothing \
            there, or an empty directory), through sequence SEQ (--until), or through the last \
            entry before the first one made after TIME (--until-time, e.g. \
            2026-11-21T19:40:00Z), or the whole journal. A SEQ inside a commit gives the state \
            part way through that commit. The journal must still start at sequence 1 (not \
            truncated). The new store has its own id; its journal restates the history (each \
            commit under its own commit id, entries keeping the origin they had). Prints one \
            summary line; on an error NEWPATH is removed again.

            Examples:
              kvstore replay ./store --into ./store-at-1200 --until 1200
              kvstore replay ./store --into ./yesterday --until-time 2026-11-20T18:00:00Z
            """
    )

    @OptionGroup var storePath: StorePathArgument<Source>
    enum Source: StorePathHelp { static let text = "The store whose journal to replay." }

    @Option(help: ArgumentHelp("The new store to build (absent, or an empty directory).", valueName: "newpath"))
    var into: String

    @Option(help: ArgumentHelp("Stop after this sequence number.", valueName: "seq"))
    var until: UInt64?

    @Option(name: .customLong("until-time"), help: ArgumentHelp("Stop before the first entry made after this time (ISO 8601).", valueName: "iso8601"))
    var untilTime: String?

    func validate() throws {
        if until != nil && untilTime != nil { throw ValidationError("give --until or --until-time, not both") }
    }

    func run() throws {
        try reportingErrors {
            var limit: Store.ReplayLimit? = until.map { .sequence($0) }
            if let untilTime {
                let tagged = #"{"$date":\#(TypedJSON.string(from: .string(untilTime)))}"#
                guard let date = (try? TypedJSON.value(from: tagged))?.dateValue else {
                    throw CommandError("--until-time: '\(untilTime)' is not an ISO 8601 time such as 2026-11-21T19:40:00Z")
                }
                limit = .time(date)
            }
            let source = try StoreAccess.openForReading(storePath.path)
            try source.checkReplayable()
            try StorePath.refuseDanglingLink(into)
            guard StoreDirectory.isEmpty(atPath: into) else {
                throw CommandError("\(into): not empty; replay builds a new store (nothing there, or an empty directory)")
            }
            let newStore = NewStore(at: into)
            let total = try source.read { txn in try txn.lastSequence() }
            let progress = Progress(label: "replaying", unit: "entries", total: Int(min(until ?? total, total)))
            let replayed: (entries: Int, through: UInt64)
            do {
                replayed = try source.replayJournal(into: StoreAccess.openCreating(into), until: limit) { progress.advance(by: $0) }
            } catch {
                progress.clear()
                newStore.remove(journaled: true)
                throw error
            }
            progress.finish()
            let output = StandardOutput()
            output.line("replayed \(replayed.entries) entries (through sequence \(replayed.through)) into \(into)")
            try output.finish()
        }
    }
}
