import ArgumentParser
import KVStore

/// `kvstore torture PATH --run R --commits N [--batch K] [--increment REF] [--durability D]
/// [--in-flight W]`: a hidden writer for
/// the crash and concurrency suites (not part of the documented command line). It makes N
/// commits, one `Store.write` each, and prints `R I` on standard output — unbuffered — after
/// commit I returned, so a test that kills the process knows which commits were acknowledged.
///
/// Commit I sets key `n` of record `counter/R` to I (inserting the record at I = 1): a
/// single-key set. With `--batch K` (K > 1) it also inserts the K records `item/R-I-J`
/// (J in 0..<K), each holding `{"run": R, "commit": I, "j": J}`. With `--increment REF` it also
/// reads key `n` of REF and writes it back plus one, inside the same transaction (a
/// read-modify-write that must lose no update when several processes do it at once).
/// `--durability` opens the store with another ``Durability``. With `--in-flight W` (W > 1) the
/// commits are async writes, W in flight at once (`TortureCommand+Async.swift`).
struct TortureCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "torture",
        abstract: "Commit numbered changes, acknowledging each (for the crash tests).",
        shouldDisplay: false
    )

    @OptionGroup var storePath: StorePathArgument<StoreCreatedWhenAbsent>

    @Option(name: .customLong("run"), help: "This writer's name: the id of its counter record and the prefix of its items.")
    var name: String

    @Option(help: "How many commits to make.")
    var commits: Int

    @Option(help: "Records each commit inserts besides its set (1: the set alone).")
    var batch: Int = 1

    @Option(help: ArgumentHelp("A record whose key n each commit increments.", valueName: "ref"))
    var increment: String?

    @Option(help: "The durability to open the store with (full, noMetaSync, periodicSync, noSync).")
    var durability: String = Durability.full.rawValue

    @Option(name: .customLong("in-flight"), help: "Async writes in flight at once (1: one synchronous write at a time).")
    var inFlight: Int = 1

    func run() throws {
        try reportingErrors {
            guard commits >= 0, batch >= 1, inFlight >= 1 else {
                throw CommandError("--commits must be 0 or more, --batch and --in-flight 1 or more")
            }
            guard let durability = Durability(rawValue: durability) else {
                throw CommandError("--durability must be one of \(Durability.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            let counter = try Input.ref("counter/\(name)")
            let shared = try increment.map(Input.ref)
            let store = try StoreAccess.openCreating(storePath.path, durability: durability)
            guard commits > 0 else { return }
            if inFlight > 1 { return try commitInFlight(store) }
            for commit in 1...commits {
                let n = Value.int(Int64(commit))
                try store.write { txn in
                    if try txn.contains(counter) {
                        try txn.setValue(n, forKey: "n", of: counter)
                    } else {
                        try txn.insert(["n": n], as: counter)
                    }
                    if batch > 1 {
                        for j in 0..<batch {
                            try txn.insert(["run": .string(name), "commit": n, "j": .int(Int64(j))], as: try Input.ref("item/\(name)-\(commit)-\(j)"))
                        }
                    }
                    if let shared {
                        if let current = try txn.record(shared)?["n"]?.intValue {
                            try txn.setValue(.int(current + 1), forKey: "n", of: shared)
                        } else {
                            try txn.insert(["n": 1], as: shared)
                        }
                    }
                }
                try Self.acknowledge(commit, of: name)
            }
        }
    }
}

extension TortureCommand {
    /// Prints `R I` (`run` R) once commit I returned.
    static func acknowledge(_ commit: Int, of name: String) throws {
        // An acknowledgement that cannot be written would make the tests miscount commits.
        if let failure = FileDescriptorOutput.writeAll(Array("\(name) \(commit)\n".utf8), to: 1) {
            throw StandardOutput.writeError(failure)
        }
    }
}
