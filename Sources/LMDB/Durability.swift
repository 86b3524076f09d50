import CLMDB

/// How hard a commit works to survive crashes.
///
/// | mode | survives a process crash | survives an OS crash or power loss |
/// |------|-------------------------|------------------------------------|
/// | ``full`` | yes | yes: data and meta page are synced at every commit |
/// | ``noMetaSync`` | yes | the last commit may be lost; the store is never corrupted |
/// | ``noSync`` | yes | **no**: recent commits may be lost and the store may be corrupted |
public enum Durability: String, Sendable, CaseIterable {
    /// LMDB syncs data pages and the meta page at every commit (the default).
    case full
    /// One sync per commit (`MDB_NOMETASYNC`): an OS crash may undo the last commit, never corrupts.
    case noMetaSync
    /// No syncs (`MDB_NOSYNC`): fastest; survives process crashes only. After an OS crash or power
    /// loss the store may be corrupt. Call ``Environment/sync(force:)`` at points that must be durable.
    case noSync

    var flags: UInt32 {
        switch self {
        case .full: 0
        case .noMetaSync: UInt32(MDB_NOMETASYNC)
        case .noSync: UInt32(MDB_NOSYNC)
        }
    }
}
