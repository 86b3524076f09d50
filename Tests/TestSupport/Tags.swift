import Foundation
import Testing

/// What a test does beyond this process's memory and files, so that a run can leave it out.
///
/// Swift Testing 6.3 selects tests only by name from the command line (`swift test --filter` and
/// `--skip` match test ids, not tags), so a tagged suite or test also carries
/// ``Testing/Trait/skippedByTag``, which skips it when the environment variable
/// `KVSTORE_TEST_SKIP_TAGS` names one of its tags:
///
/// ```sh
/// KVSTORE_TEST_SKIP_TAGS=subprocess,crash,network,root swift test   # the fast subset
/// ```
///
/// ```swift
/// @Suite(.tags(.subprocess), .skippedByTag) struct DumpTests { … }
/// ```
extension Tag {
    /// Runs a child process: the `kvstore` tool, LMDB's `mdb_stat`/`mdb_dump`/`mdb_load`, `openssl`
    /// for TLS certificates.
    @Tag public static var subprocess: Self
    /// Kills a process on purpose (SIGKILL at a random moment), to check what survives.
    @Tag public static var crash: Self
    /// Opens sockets: a journal server, a client, a fake peer, `kvstore serve`.
    @Tag public static var network: Self
    /// Needs root to do its work (a tmpfs mounted by ``ScratchFileSystem``, the tool run as
    /// `nobody` with `setpriv`); it skips itself, saying why, when not root.
    @Tag public static var root: Self
    /// Starts a private PostgreSQL cluster (``PostgreSQLCluster``); skipped, saying so, when
    /// PostgreSQL is not installed.
    @Tag public static var postgresql: Self
}

/// Skips a test or suite whose tags the run asked to leave out (see ``Testing/Tag/subprocess``).
public struct SkippedByTag: TestTrait, SuiteTrait {
    /// The environment variable naming the tags to leave out, separated by commas.
    public static let variable = "KVSTORE_TEST_SKIP_TAGS"

    /// The tags ``variable`` names, and the names that are no tag (a typo would run everything).
    static let requested: (tags: Set<Tag>, unknown: [String]) = {
        let known: [String: Tag] = [
            "subprocess": .subprocess, "crash": .crash, "network": .network, "root": .root, "postgresql": .postgresql,
        ]
        let names = (ProcessInfo.processInfo.environment[variable] ?? "").split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return (Set(names.compactMap { known[$0] }), names.filter { known[$0] == nil })
    }()

    /// Applies to the suite's tests too, each judged by its own tags and those it inherits.
    public var isRecursive: Bool { true }

    public func prepare(for test: Test) async throws {
        if let name = Self.requested.unknown.first {
            throw UnknownTag(description: "\(Self.variable): no tag named '\(name)' (subprocess, crash, network, root, postgresql)")
        }
        if test.tags.contains(.postgresql), let missing = PostgreSQLCluster.notInstalled {
            try await ConditionTrait.disabled(Comment(rawValue: missing)).prepare(for: test)
            return
        }
        let left = test.tags.intersection(Self.requested.tags)
        guard !left.isEmpty else { return }
        let names = left.map { String("\($0)".drop { $0 == "." }) }.sorted().joined(separator: ", ")
        try await ConditionTrait.disabled(Comment(rawValue: "\(Self.variable) leaves out \(names)")).prepare(for: test)
    }

    struct UnknownTag: Error, CustomStringConvertible {
        let description: String
    }
}

extension Trait where Self == SkippedByTag {
    /// Skips the test or suite when `KVSTORE_TEST_SKIP_TAGS` names one of its tags.
    public static var skippedByTag: Self { SkippedByTag() }
}
