import KVStore

/// Turns group commit on or off (one line, so that a build of the store from before group commit
/// can drop it to measure the single-writer path).
enum GroupCommitSwitch {
    static func set(_ options: inout Store.Options, _ on: Bool) {
        options.groupsCommits = on
    }
}
