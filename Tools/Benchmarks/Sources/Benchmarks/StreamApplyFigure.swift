import Foundation
import KVStore

extension Figures {
    /// What `kvstore journal export SOURCE > FILE && kvstore journal apply REPLICA FILE` does, in
    /// process: the big store's journal exported to a file (not timed), then, timed, the whole
    /// stream checked (every frame and entry read through, ``JournalStreamReader/readThrough()``)
    /// and read again and applied by ``Store/applyJournal(_:progress:sourceLastSequence:)`` into a
    /// new store at full sync, as the command does. Reported with measurement 18.
    func streamApply(from source: Store) throws -> Figure {
        let file = root + "/stream.journal", replica = root + "/stream-replica"
        defer {
            try? FileManager.default.removeItem(atPath: file)
            try? FileManager.default.removeItem(atPath: replica)
        }
        guard FileManager.default.createFile(atPath: file, contents: nil), let output = FileHandle(forWritingAtPath: file) else {
            throw SetupError("cannot create \(file)")
        }
        _ = try source.exportJournal { try output.write(contentsOf: $0) }
        try output.close()
        var options = Store.Options()
        options.mapSize = 4 << 30
        return try applyRate(applier: "the stream apply", minimum: 200_000,
                             name: { "replication apply from a journal stream file (\($0) insert entries, checked, then applyJournal)" }) {
            try Self.withDescriptor(file) { descriptor in
                try JournalStreamReader(fileDescriptor: descriptor).readThrough()
            }
            let store = try Store(path: replica, options: options)
            var applied = 0
            try Self.withDescriptor(file) { descriptor in
                applied = try store.applyJournal(JournalStreamReader(fileDescriptor: descriptor)).applied
            }
            return applied
        }
    }

    private static func withDescriptor(_ path: String, _ body: (Int32) throws -> Void) throws {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw SetupError("cannot open \(path)") }
        defer { close(descriptor) }
        try body(descriptor)
    }
}
