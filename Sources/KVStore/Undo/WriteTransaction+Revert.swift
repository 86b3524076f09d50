/// Reverting a commit: writing the inverse of its entries as changes of this transaction.
extension WriteTransaction {
    /// Writes the inverse of commit `commit`'s changes, last entry first, through the ordinary
    /// write path (closed kinds, declared types, validators, hooks, indexes, the journal): a key
    /// set back to its old value (removed when it had none), array elements inserted, removed or
    /// replaced back at their indexes, an inserted record deleted, a deleted record inserted again
    /// with all its values.
    ///
    /// ```swift
    /// try store.write { txn in try txn.revert(commit: 12) }
    /// ```
    /// - Parameters:
    ///   - commit: the id of the commit to invert (``JournalEntry/commitID``).
    ///   - force: revert even when a later commit changed a key (or record) the commit
    ///     changed; the later change is then overwritten. A record the commit deleted and a later
    ///     commit inserted again becomes the deleted record whole (keys added since are removed);
    ///     a record the commit inserted or changed and a later commit deleted stays deleted (its
    ///     inverse is skipped: force restores keys only on records that exist).
    /// - Throws: ``RevertError`` (`noSuchCommit`, `truncated`, `conflict` naming the later
    ///   commit, the record and the key; `notRevertible` for a change of the kind catalog), or
    ///   what the write path throws for one of the inverse changes (``KeyValueCodingError``…).
    public func revert(commit: UInt64, force: Bool = false) throws {
        try revert(commit: commit, force: force, ignoring: [])
    }

    /// ``revert(commit:force:)``, not counting the later commits in `ignored` as conflicts:
    /// commits an ``UndoStack`` undid together with their reverts, which cancel out.
    func revert(commit: UInt64, force: Bool, ignoring ignored: Set<UInt64>) throws {
        let entries = try self.entries(ofCommit: commit).filter { !$0.isDerived }
        if let declaration = entries.first(where: { $0.change == .kindDeclared }) {
            throw RevertError(.notRevertible, commit, "it changed the declaration of kind '\(declaration.ref.kind)', which a revert does not undo", ref: declaration.ref)
        }
        if !force, let conflict = try laterConflict(with: entries, of: commit, ignoring: ignored) { throw conflict }
        for entry in entries.reversed() { try applyInverse(of: entry, force: force) }
    }

    /// The first later change of a key or record that `entries` changed, as a conflict error.
    private func laterConflict(with entries: [JournalEntry], of commit: UInt64, ignoring ignored: Set<UInt64>) throws -> RevertError? {
        guard let after = entries.last?.sequence else { return nil }
        let changed = Dictionary(grouping: entries, by: \.ref)
        var conflict: RevertError?
        try forEachJournalEntry(from: after + 1) { later in
            guard !later.isDerived, later.change != .kindDeclared, !ignored.contains(later.commitID), let mine = changed[later.ref],
                  let overlapping = mine.first(where: { Self.overlap($0, later) }) else { return true }
            let keyPath = later.keyPath ?? overlapping.keyPath
            let what = switch later.change {
            case .recordDeleted: "deleted \(later.ref)"
            case .recordInserted: "inserted \(later.ref)"
            default: keyPath.map { "changed '\($0)' of \(later.ref)" } ?? "changed \(later.ref)"
            }
            conflict = RevertError(
                .conflict, commit, "commit \(later.commitID) \(what) after it",
                ref: later.ref, keyPath: keyPath, laterCommit: later.commitID)
            return false
        }
        return conflict
    }

    /// Whether two entries of one record touch the same data: either is a whole-record change,
    /// or one key path is the other or lies inside it.
    private static func overlap(_ a: JournalEntry, _ b: JournalEntry) -> Bool {
        guard let x = a.keyPath, let y = b.keyPath else { return true }
        return x == y || x.hasPrefix(y + ".") || y.hasPrefix(x + ".")
    }

    /// Writes the change that undoes `entry`. Forced, a record that a later commit deleted is
    /// left deleted, and a deleted record that a later commit inserted again is overwritten.
    private func applyInverse(of entry: JournalEntry, force: Bool) throws {
        let ref = entry.ref
        if force, entry.change != .recordDeleted, entry.change != .kindDeclared, try !contains(ref) { return }
        switch entry.change {
        case .recordInserted:
            try delete(ref)
        case .recordDeleted:
            guard case .dictionary(let values)? = entry.oldValue else {
                throw StoreError(.corrupt, "journal entry \(entry.sequence) deletes \(ref) without its values", path: store.path)
            }
            if force, try contains(ref) {
                try update(ref, from: values)
            } else {
                try insert(values, as: ref)
            }
        case .setting:
            guard let keyPath = entry.keyPath else { return }
            if let old = entry.oldValue, !old.isNull {
                try setValue(old, forKeyPath: keyPath, of: ref)
            } else if entry.oldValue?.isNull == true, let dot = keyPath.lastIndex(of: ".") {
                try restoreNestedNull(at: keyPath, parent: String(keyPath[..<dot]), key: String(keyPath[keyPath.index(after: dot)...]), of: ref)
            } else {
                try removeValue(forKeyPath: keyPath, of: ref)
            }
        case .insertion, .removal, .replacement:
            guard let key = entry.keyPath, let indexes = entry.indexes else { return }
            let array = mutableArray(forKey: key, of: ref)
            switch entry.change {
            case .insertion: try array.remove(at: indexes)
            case .removal: try array.insert(entry.oldValue?.arrayValue ?? [], at: indexes)
            default: try array.replace(at: indexes, with: entry.oldValue?.arrayValue ?? [])
            }
        case .kindDeclared:
            break
        }
    }

    /// Puts a nested key's `null` back (setting `null` removes a key, so the parent dictionary is
    /// set with the key holding `null` again), as the record held it before the commit.
    private func restoreNestedNull(at keyPath: String, parent: String, key: String, of ref: RecordRef) throws {
        guard case .dictionary(var dictionary)? = try value(forKeyPath: parent, of: ref) else {
            return try removeValue(forKeyPath: keyPath, of: ref)
        }
        dictionary[key] = .null
        try setValue(.dictionary(dictionary), forKeyPath: parent, of: ref)
    }
}
