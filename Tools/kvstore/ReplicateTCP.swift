import KVStore

extension ReplicateCommand {
    /// `kvstore replicate tcp://HOST:PORT DEST [--follow] [--snapshot]`: replication from a
    /// `kvstore serve` process.
    ///
    /// NETWORK TRANSPORT GOES HERE: this one function (and this file) is the seam the TCP
    /// transport replaces; `run()` calls it for every SOURCE starting with `tcp://`, with the
    /// command's `source`, `destination`, `follow` and `snapshot` as parsed.
    func replicateFromServer() throws {
        throw CommandError("\(source): tcp sources are not built yet; give a store path as SOURCE")
    }
}
