import ArgumentParser
import KVStore

/// `kvstore`: the command-line tool for kvstore stores. Scripts depend on its
/// commands, arguments, output formats and exit statuses
/// (Sources/KVStore/KVStore.docc/Guarantees.md, "The command line").
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
            (2 for verify and diff, whose 1 means findings or differences; 64 for a mistake in \
            the command line); bad input changes nothing.

            Examples:
              kvstore demo
              kvstore set ./store person/ada name '"Ada"'
              kvstore get ./store person/ada
              kvstore dump ./store --format table
              kvstore journal list ./store --since 10
              kvstore value ./store invoice @sum.amount
              kvstore query ./store item "read == NO" --sort published:desc --limit 50
              kvstore dump ./old | kvstore load ./new
              kvstore stat ./store
              kvstore render ./store person/ada --text 'Hello [[name]]'
            """,
        version: Store.libraryVersion,
        subcommands: [
            DemoCommand.self, GetCommand.self, SetCommand.self, RemoveCommand.self, ValueCommand.self,
            QueryCommand.self, CountCommand.self,
            DumpCommand.self, LoadCommand.self, JournalCommand.self, ReplayCommand.self,
            StatCommand.self, VerifyCommand.self, DiffCommand.self, RenderCommand.self, KindCommand.self,
            RevertCommand.self,
            ReplicateCommand.self, PromoteCommand.self,
            ServeCommand.self, IndexCommand.self, SyncCommand.self, StudioCommand.self,
            TortureCommand.self,  // hidden: the crash and concurrency tests' writer
        ]
    )

    /// Runs the tool. A mistake in the command line is reported as one line, like every other
    /// error — `kvstore: <problem> (see 'kvstore <command> --help')` with status 64 — instead of
    /// ArgumentParser's message followed by the usage text; `--help` and `--version` print as usual.
    static func main() {
        StandardDescriptors.occupyClosed()
        if let invalid = RawArguments.firstInvalid(in: RawArguments.current()) {
            StandardError.report(invalid)
            exit(withError: ExitCode(64))
        }
        var arguments = Array(CommandLine.arguments.dropFirst())
        do {
            var command: any ParsableCommand
            while true {
                do {
                    command = try parseAsRoot(arguments)
                    break
                } catch {
                    // `--limit -5`: the -5 was read as an option; give it to --limit. `set … -5`:
                    // a positional value; read it as one.
                    guard let retried = NegativeValues.joined(arguments, after: self.message(for: error))
                            ?? NegativeValues.positional(arguments) else { throw error }
                    arguments = retried
                }
            }
            CrashGuard.install(status: command is VerifyCommand || command is DiffCommand ? 2 : 1)
            try command.run()
        } catch {
            let code = exitCode(for: error)
            if code == .success || error is ExitCode { exit(withError: error) }
            var message = self.message(for: error)
                .split(separator: "\n").first.map(String.init) ?? "invalid command line"
            message = NegativeValues.rule(for: message) ?? message
            if message.hasPrefix("Missing expected argument"),
               let number = arguments.prefix(while: { $0 != "--" }).first(where: { $0.count > 1 && $0.hasPrefix("-") && Double($0) != nil }) {
                message += "; '\(number)' was read as an option: put '--' before a negative number"
            }
            StandardError.report("\(message) (see '\(helpCommand(for: arguments)) --help')")
            exit(withError: ExitCode(code.rawValue))
        }
    }

    /// `kvstore`, followed by the (sub)command names that start `arguments`.
    private static func helpCommand(for arguments: [String]) -> String {
        var names = ["kvstore"]
        var commands = configuration.subcommands
        for argument in arguments {
            guard let command = commands.first(where: { $0.configuration.commandName == argument }) else { break }
            names.append(argument)
            commands = command.configuration.subcommands
        }
        return names.joined(separator: " ")
    }
}
