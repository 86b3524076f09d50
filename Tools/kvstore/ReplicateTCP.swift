import KVStore
import KVStoreNetwork

extension ReplicateCommand {
    /// `kvstore replicate tcp://HOST:PORT DEST [--follow] [--snapshot]`: replication from a
    /// `kvstore serve` process, through a ``JournalClient``. Following, it reconnects when the
    /// server goes away (a restart) and resumes after DEST's checkpoint.
    func replicateFromServer() throws {
        let address = try NetworkAddress(url: source)
        var options = JournalClient.Options(follow: follow, startFromSnapshot: snapshot)
        try security.apply(to: &options)
        let client = JournalClient(host: address.host, port: address.port, replica: destination, options: options)
        let status = try replicating(run: client.run, stop: client.stop)
        let output = StandardOutput()
        output.line(Self.summary(status))
        try output.finish()
    }
}
