import Synchronization

/// Undo and redo for an app's own commits, in the order it made them (LIFO), by reverting them
/// (``Store/revert(commit:force:)``): each undo and redo is an ordinary new commit.
///
/// ```swift
/// let history = UndoStack(store: store)
/// try history.write { txn in try txn.setValue("Ada", forKey: "name", of: ada) }
/// try history.undo()     // name back to what it was
/// try history.redo()     // "Ada" again
/// ```
///
/// The stack records the commit of each write made through ``write(_:)`` (or a commit given to
/// ``record(commit:)``); recording one clears the redo stack, as a new edit does in an editor.
/// ``undo(force:)`` reverts the newest recorded commit and moves the revert's commit to the redo
/// stack; ``redo(force:)`` reverts that revert and moves the result back.
///
/// Undoing two edits of one key works: a commit the stack undid and its revert cancel out, so
/// they are no conflict for an earlier commit. When another commit changed the same key or
/// record since (another writer, or a write not made through the stack), the revert is refused with a ``RevertError`` `conflict` naming it,
/// and the stacks are left as they were: the app may tell the user, undo with `force: true`
/// (overwriting the later change), or drop the entry with ``removeAll()``. Any other error
/// leaves the stacks unchanged too.
///
/// It is `Sendable`: its stacks are behind a lock, never held while the store writes, so an
/// observer may use the stack from its callback. An undo takes its commit off the stack before
/// reverting it, so two concurrent undos revert two different commits.
public final class UndoStack: Sendable {
    /// The store whose commits are undone.
    public let store: Store
    private let stacks = Mutex<Stacks>(Stacks())

    private struct Stacks {
        var undo: [UInt64] = []
        var redo: [UInt64] = []
        /// The commits this stack reverted and their reverts: each pair cancels out, so a later
        /// one is no conflict for an earlier commit's undo (undoing two edits of one key).
        var settled: Set<UInt64> = []
        /// How many commits were recorded: an undo whose revert commits while one is recorded
        /// (an observer writing through the stack) leaves nothing to redo, as any new edit does.
        var recorded = 0
    }

    /// An empty stack for `store`.
    public init(store: Store) {
        self.store = store
    }

    /// The commits an undo would revert, oldest first (the last is undone first).
    public var undoCommits: [UInt64] { stacks.withLock { $0.undo } }
    /// The commits a redo would revert (reverts made by undo), oldest first.
    public var redoCommits: [UInt64] { stacks.withLock { $0.redo } }
    /// Whether there is a commit to undo.
    public var canUndo: Bool { !undoCommits.isEmpty }
    /// Whether there is an undone commit to redo.
    public var canRedo: Bool { !redoCommits.isEmpty }

    /// Runs ``Store/write(_:)-2jclw`` and records its commit for undo (nothing when it changed nothing).
    public func write<T>(_ body: (WriteTransaction) throws -> T) throws -> T {
        let (result, commit) = try store.write { txn in
            let result = try body(txn)
            return (result, txn.commitID)
        }
        if let commit { record(commit: commit) }
        return result
    }

    /// Records `commit` (one the app made) as the next to undo, and clears the redo stack.
    public func record(commit: UInt64) {
        stacks.withLock { stacks in
            stacks.undo.append(commit)
            stacks.redo.removeAll()
            stacks.recorded += 1
        }
    }

    /// Empties both stacks.
    public func removeAll() {
        stacks.withLock { $0 = Stacks() }
    }

    /// Reverts the newest commit on the undo stack and moves the revert to the redo stack.
    /// - Parameter force: revert even over a later change of the same key or record.
    /// - Returns: the revert's commit id; nil when the stack is empty or the revert changed nothing.
    /// - Throws: ``RevertError`` (`conflict`, `truncated`…) or a write error; the stacks are unchanged.
    @discardableResult
    public func undo(force: Bool = false) throws -> UInt64? {
        try move(from: \.undo, to: \.redo, force: force)
    }

    /// Reverts the newest undo (the top of the redo stack) and moves the result back onto the
    /// undo stack, leaving the rest of the redo stack for further redos.
    /// - Returns: the new commit id; nil when there is nothing to redo or it changed nothing.
    /// - Throws: as ``undo(force:)``; the stacks are unchanged.
    @discardableResult
    public func redo(force: Bool = false) throws -> UInt64? {
        try move(from: \.redo, to: \.undo, force: force)
    }

    private typealias Stack = WritableKeyPath<Stacks, [UInt64]>

    /// Takes the top of `source` off, reverts it, and pushes the revert onto `target`; on
    /// failure puts it back where it was.
    private func move(from source: Stack, to target: Stack, force: Bool) throws -> UInt64? {
        guard let (commit, position, settled, recorded) = stacks.withLock({ stacks -> (UInt64, Int, Set<UInt64>, Int)? in
            guard let commit = stacks[keyPath: source].popLast() else { return nil }
            return (commit, stacks[keyPath: source].count, stacks.settled, stacks.recorded)
        }) else { return nil }
        let reverted: UInt64?
        do {
            reverted = try store.revert(commit: commit, force: force, ignoring: settled)
        } catch {
            stacks.withLock { stacks in
                stacks[keyPath: source].insert(commit, at: min(position, stacks[keyPath: source].count))
            }
            throw error
        }
        if let reverted {
            stacks.withLock { stacks in
                stacks.settled.formUnion([commit, reverted])
                // A commit recorded meanwhile is a newer edit: no redo over it, and an undo
                // entry goes below it (commit order).
                if target == \Stacks.redo && stacks.recorded != recorded { return }
                let index = stacks[keyPath: target].lastIndex { $0 < reverted }.map { $0 + 1 } ?? 0
                stacks[keyPath: target].insert(reverted, at: index)
            }
        }
        return reverted
    }
}
