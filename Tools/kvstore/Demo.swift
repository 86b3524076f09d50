import ArgumentParser
import Foundation
import KVStore

/// `kvstore demo [PATH]`: builds a sample store and narrates what the store does at each step.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Build a sample store, explaining each step.",
        discussion: """
            Creates a store with people and invoices, then shows kinds and their hooks, key \
            paths, observers reporting changes, a closed kind refusing an unknown key, a no-op set, index-level array edits, \
            collection operators, a key path through a reference, a batch sharing one commit, \
            a typed model and an update writing only what differs, a replica refusing local writes, \
            the journal and a dump. The store is kept, so you can inspect it afterwards.

            Without PATH, the store goes in a new directory kvstore-demo-<random> under the \
            temporary directory. A PATH that already holds a store, or a directory with other \
            files, is refused.

            Examples:
              kvstore demo
              kvstore demo /tmp/sample && kvstore dump /tmp/sample --format table
            """
    )

    @Argument(help: "Where to create the sample store: a new path, or an empty directory.")
    var path: String?

    func run() throws {
        try reportingErrors {
            let path = try path.map(Self.checkedNewPath) ?? Self.temporaryPath()
            let output = StandardOutput()
            var script = DemoScript(path: path, output: output)
            try script.run()
            try output.finish()
        }
    }

    /// `path`, when nothing there would be overwritten.
    private static func checkedNewPath(_ path: String) throws(CommandError) -> String {
        if StoreDirectory.hasDataFile(atPath: path) {
            throw CommandError("\(path): already holds a store; the demo needs a new path or an empty directory")
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue,
           !StoreDirectory.isEmpty(atPath: path) {
            throw CommandError("\(path): the directory is not empty; the demo needs a new path or an empty directory")
        }
        return path
    }

    /// A new directory name under the temporary directory.
    private static func temporaryPath() -> String {
        let suffix = UUID().uuidString.prefix(8).lowercased()
        return FileManager.default.temporaryDirectory.appendingPathComponent("kvstore-demo-\(suffix)").path
    }
}
