import Foundation
import KVStore
import Synchronization

/// The health pane: `kvstore stat`'s figures — map use, file size, the readers (with how long
/// each has been seen and how many transactions it is behind), the journal's range, the consumers'
/// and replication sources' lag — and commits per second.
final class Health: Sendable {
    /// When each reader slot (`pid thread txn`) was first seen: its age, as far as the studio knows.
    private let firstSeen = Mutex<[String: Date]>([:])

    func report(_ store: Store, live: LiveFeed, now: Date = Date()) throws -> [String: Value] {
        let stats = try store.statistics()
        let environment = stats.environment
        let readers: [(fields: [String], age: Double)] = firstSeen.withLock { seen in
            seen = seen.filter { stats.readers.contains($0.key) }
            return stats.readers.map { line in
                let since = seen[line] ?? now
                seen[line] = since
                return (fields: line.split(separator: " ").map(String.init), age: now.timeIntervalSince(since))
            }
        }.filter { $0.fields.count == 3 }
        return [
            "storage": .dictionary([
                "fileSize": .int(Int64(stats.fileSize)), "mapSize": .int(Int64(environment.mapSize)),
                "mapUsed": .int(Int64(environment.bytesUsed)), "pageSize": .int(Int64(environment.pageSize)),
                "lastTransaction": .int(Int64(environment.lastTransaction)),
            ]),
            "readers": .array(readers.map { fields, age in
                let txn = UInt64(fields[2])
                return .dictionary([
                    "pid": .string(fields[0]), "thread": .string(fields[1]), "txn": .string(fields[2]),
                    "behind": txn.map { .int(Int64(environment.lastTransaction) - Int64($0)) } ?? .null,
                    "seenFor": .double(age),
                ])
            }),
            "maxReaders": .int(Int64(environment.maxReaders)),
            "journal": .dictionary([
                "first": stats.journal.first.map(StudioJSON.number) ?? .null, "last": StudioJSON.number(stats.journal.last),
                "entries": .int(Int64(stats.journal.entries)), "lastCommit": StudioJSON.number(stats.journal.lastCommit),
            ]),
            "consumers": .array(stats.consumers.map { consumer in
                .dictionary([
                    "name": .string(consumer.name), "cursor": StudioJSON.number(consumer.cursor),
                    "lag": StudioJSON.number(consumer.lag), "expired": .bool(consumer.isExpired),
                ])
            }),
            "replication": .array(stats.replicationSources.map { source in
                .dictionary([
                    "source": .string(source.source.uuidString.lowercased()), "applied": StudioJSON.number(source.appliedSequence),
                    "lag": source.lag.map(StudioJSON.number) ?? .null,
                ])
            }),
            "records": .int(Int64(stats.kinds.reduce(0) { $0 + $1.count })),
            "commitsPerSecond": .array(live.commitRate(seconds: 60, now: now).map { .int(Int64($0.commits)) }),
            "following": live.failure.map { .string("stopped: \($0)") } ?? .string("following"),
        ]
    }
}
