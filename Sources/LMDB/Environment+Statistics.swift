import CLMDB

/// Sizes, page use and readers of an environment, for `kvstore stat`.
extension Environment {
    /// What `mdb_env_info` and `mdb_env_stat` report about the environment as a whole.
    public struct Statistics: Sendable, Hashable {
        /// The map size in bytes: the most the data file may grow to before the map is grown.
        public var mapSize: Int
        /// The page size in bytes.
        public var pageSize: Int
        /// Pages in use up to the last one written (`me_last_pgno + 1`), free pages included.
        public var pagesUsed: Int
        /// The id of the last committed transaction.
        public var lastTransaction: Int
        /// Reader slots in the lock table.
        public var maxReaders: Int
        /// Reader slots used (by this process and others; stale ones until `mdb_reader_check` clears them).
        public var readers: Int

        /// The bytes of the map in use: ``pagesUsed`` × ``pageSize`` (`Int.max` when a damaged
        /// meta page names more than that).
        public var bytesUsed: Int {
            let (bytes, overflow) = pagesUsed.multipliedReportingOverflow(by: pageSize)
            return overflow ? .max : bytes
        }
    }

    /// The environment's map size, page use and reader slots.
    ///
    /// ```swift
    /// let stats = environment.statistics()
    /// print("\(stats.bytesUsed) of \(stats.mapSize) bytes used")
    /// ```
    public func statistics() -> Statistics {
        let info = self.info()
        return Statistics(
            // A damaged meta page may name any last page: LMDB reports it as it is.
            mapSize: info.mapSize, pageSize: info.pageSize, pagesUsed: info.lastPage < 0 ? .max : info.lastPage &+ 1,
            lastTransaction: info.lastTransaction, maxReaders: info.maxReaders, readers: info.readers)
    }

    /// The lock table's reader slots in use, one line per reader as `mdb_reader_list` prints them
    /// (`pid thread txnid`, the transaction id `-` for a slot without an open transaction).
    ///
    /// ```swift
    /// for reader in environment.readerList() { print(reader) }   // "  4711 7f3a… 42"
    /// ```
    public func readerList() -> [String] {
        final class Lines { var lines: [String] = [] }
        let collected = Lines()
        let context = Unmanaged.passUnretained(collected).toOpaque()
        _ = mdb_reader_list(handle, { message, context in
            guard let message, let context else { return 0 }
            let lines = Unmanaged<Lines>.fromOpaque(context).takeUnretainedValue()
            lines.lines.append(String(cString: message).trimmingTrailingNewline())
            return 0
        }, context)
        withExtendedLifetime(collected) {}
        // The first line is mdb_reader_list's header ("    pid     thread     txnid"), or "(no active readers)".
        return collected.lines.filter { !$0.contains("pid") && !$0.contains("no active readers") }
    }
}

extension String {
    fileprivate func trimmingTrailingNewline() -> String {
        var text = self
        while text.last == "\n" { text.removeLast() }
        return text
    }
}
