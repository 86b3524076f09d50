import KVStore

extension TestDirectory {
    /// Sets key `key` of record `counter/c` in the store at `path` to each of `values` in turn, one
    /// commit each, through the library in this process (creating the store and record when
    /// absent): quicker than a `kvstore set` process per change, and still another process than
    /// the `kvstore` being tested. Durability is relaxed: tests need no syncs.
    func commitCounter(_ values: ClosedRange<Int>, key: String = "n", to path: String) throws {
        var options = Store.Options()
        options.durability = .noSync
        let store = try Store(path: path, options: options)
        let counter = try RecordRef("counter/c")
        for value in values {
            if try store.record(counter) == nil {
                try store.insert([key: .int(Int64(value))], as: counter)
            } else {
                try store.setValue(.int(Int64(value)), forKey: key, of: counter)
            }
        }
    }
}
