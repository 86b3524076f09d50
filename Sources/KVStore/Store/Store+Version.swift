extension Store {
    /// The version of the kvstore package — the `KVStore` library and the `kvstore` tool, which
    /// prints it for `kvstore --version`.
    ///
    /// The one place the version is written: it is changed by hand in the commit that makes a
    /// release, and the release's git tag is this text (`git tag 0.2.0`). It follows semantic
    /// versioning (`MAJOR.MINOR.PATCH`); the storage format has its own number
    /// (``StoreStatistics/formatVersion``), which a release changes only with a migration.
    ///
    /// ```swift
    /// print(Store.libraryVersion)   // "0.1.0"
    /// ```
    public static let libraryVersion = "0.1.0"
}
