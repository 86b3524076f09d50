import CLMDB

/// How hard a commit works to survive crashes.
///
/// | mode | syncs | survives a process crash | survives an OS crash or power loss |
/// |------|-------|-------------------------|------------------------------------|
/// | ``full`` | data pages, then the meta page, at every commit | yes | yes |
/// | ``noMetaSync`` | data pages at every commit | yes | the last commit may be lost; never corrupts |
/// | ``periodicSync`` | none at commit; the whole file every ``Environment/Options/syncInterval`` when something was committed, at ``Environment/sync(force:)`` and at close | yes | yes when no commit was made since the last sync; otherwise commits since it may be lost **and the store may be corrupt** |
/// | ``noSync`` | none | yes | **no**: recent commits may be lost and the store may be corrupted |
public enum Durability: String, Sendable, CaseIterable {
    /// Data pages and the meta page are synced, in that order, before a commit is acknowledged
    /// (the default). The data pages are synced inside the commit; the meta page after the write
    /// lock is released, so that the next write commits while it is synced
    /// (``Environment/syncCommitted(since:)``).
    case full
    /// One sync per commit (`MDB_NOMETASYNC`): an OS crash may undo the last commit, never corrupts.
    case noMetaSync
    /// No sync at commit (`MDB_NOSYNC`); the environment syncs the file in the background every
    /// ``Environment/Options/syncInterval`` when this process committed since the last sync, when
    /// asked (``Environment/sync(force:)``), and when it closes. A killed process loses nothing
    /// it acknowledged (the pages are in the OS's cache). After an OS crash or power loss, the
    /// store is as the last completed sync left it when nothing was committed after it; when
    /// something was, those commits may be lost and — LMDB's `MDB_NOSYNC` caveat: the kernel may
    /// write the new meta page before the data pages it names — the store may be corrupt.
    case periodicSync
    /// No syncs (`MDB_NOSYNC`): fastest; survives process crashes only. After an OS crash or power
    /// loss the store may be corrupt. Call ``Environment/sync(force:)`` at points that must be durable.
    case noSync

    /// The flags the environment opens with.
    var flags: UInt32 {
        switch self {
        case .full, .noMetaSync: UInt32(MDB_NOMETASYNC)
        case .noSync, .periodicSync: UInt32(MDB_NOSYNC)
        }
    }

    /// Whether a commit is acknowledged only after the environment synced its meta page itself,
    /// outside the write lock (``Environment/syncCommitted(since:)``).
    var syncsMetaAfterCommit: Bool { self == .full }
}
