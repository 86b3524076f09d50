import ArgumentParser
import KVStore

/// `kvstore promote PATH`.
struct PromoteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "promote",
        abstract: "Make a replica writable.",
        discussion: """
            A replica (a store that 'kvstore replicate' or 'kvstore journal apply' wrote to) \
            refuses local writes: only changes applied from its source change its records. \
            Promoting it makes it take local writes, for example when its source is gone. Prints \
            one typed JSON line: {"promoted":true,"source":"<source id>"} ("promoted":false when \
            it already was).

            Changes from the source can still be applied to a promoted store (its checkpoints \
            stay), but once it was written to the two may have diverged: an apply that meets a \
            divergence stops with an error. Promoting a store that never was a replica is an error.

            Examples:
              kvstore promote ./replica
              kvstore stat ./replica        # role: promoted
            """
    )

    @OptionGroup var storePath: StorePathArgument<Replica>
    enum Replica: StorePathHelp { static let text = "The replica's directory." }

    func run() throws {
        try reportingErrors {
            let store = try StoreAccess.openExisting(storePath.path)
            let changed = try store.promote()
            var line: [String: Value] = ["promoted": .bool(changed)]
            if case .promoted(let source) = try store.read({ try $0.replicationRole() }) {
                line["source"] = .string(source.uuidString.lowercased())
            }
            let output = StandardOutput()
            output.line(TypedJSON.string(from: .dictionary(line)))
            try output.finish()
        }
    }
}
