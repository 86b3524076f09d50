import Foundation
import KVStore

extension DemoScript {
    /// Replicates the demo store into a temporary replica, shows that the replica refuses a local
    /// write, and removes it.
    func showReplication(_ store: Store, invoice: RecordRef) throws {
        let suffix = UUID().uuidString.prefix(8).lowercased()
        let replicaPath = FileManager.default.temporaryDirectory.appendingPathComponent("kvstore-demo-replica-\(suffix)").path
        defer { try? FileManager.default.removeItem(atPath: replicaPath) }
        let status = try Replicator(source: store, replicaPath: replicaPath).run()
        say("Replicated the store into \(replicaPath) (removed at the end): \(status.applied) journal entries "
            + "applied exactly once, each source commit in one replica transaction with its checkpoint; "
            + "lag \(status.lag).")
        let replica = try Store(path: replicaPath)
        do {
            try replica.setValue(1, forKey: "amount", of: invoice)
        } catch {
            say("A local write on the replica is refused until it is promoted:")
            say("  \(error)")
        }
        say("From the shell: kvstore replicate PATH REPLICA [--follow], or over TCP with kvstore serve PATH "
            + "and kvstore replicate tcp://HOST:PORT REPLICA.")
    }
}
