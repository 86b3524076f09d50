import CLMDB

/// Consistent copies of a whole environment (`mdb_env_copyfd2`, `mdb_env_copy2`): what a backup
/// or a new replica starts from.
extension Environment {
    /// Writes a copy of the environment's data file to `fileDescriptor` (a file or a pipe, written
    /// from its current position): one consistent snapshot, taken in a read transaction of its
    /// own, while writers go on. Compacting (the default, `MDB_CP_COMPACT`) leaves out free pages
    /// and renumbers the rest, so the copy is as small as the data.
    ///
    /// ```swift
    /// let fd = open("/backups/data.mdb", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    /// try environment.copy(toFileDescriptor: fd)
    /// close(fd)
    /// ```
    /// The result opens as an environment once it is named `data.mdb` in a directory of its own.
    /// - Throws: ``LMDBError`` from `mdb_env_copyfd2` (for example `EPIPE`, or `ENOSPC`).
    public func copy(toFileDescriptor fileDescriptor: Int32, compacting: Bool = true) throws(LMDBError) {
        try copying("mdb_env_copyfd2") {
            mdb_env_copyfd2(handle, fileDescriptor, compacting ? UInt32(MDB_CP_COMPACT) : 0)
        }
    }

    /// Copies the environment into the directory `path`, which must exist and hold no `data.mdb`
    /// yet: one consistent snapshot, compacted unless `compacting` is false (see
    /// ``copy(toFileDescriptor:compacting:)``).
    ///
    /// ```swift
    /// try environment.copy(toPath: "/backups/store")   // /backups/store/data.mdb
    /// ```
    /// - Throws: ``LMDBError`` from `mdb_env_copy2` (`ENOENT` for a missing directory, `EEXIST`
    ///   when it already holds a data file).
    public func copy(toPath path: String, compacting: Bool = true) throws(LMDBError) {
        try copying("mdb_env_copy2(\(path))") {
            mdb_env_copy2(handle, path, compacting ? UInt32(MDB_CP_COMPACT) : 0)
        }
    }
}
