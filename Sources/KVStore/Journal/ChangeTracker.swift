/// The will-change / did-change pairs open in one write transaction.
///
/// Nested pairs for the same record and key path coalesce: the outermost will-change remembers
/// the old value, inner pairs only count, and the outermost did-change compares old and new and
/// reports one change (or none when they are equal).
struct ChangeTracker {
    struct Key: Hashable {
        let ref: RecordRef
        /// In NFC, as records store keys: every journaled key path passes here.
        let keyPath: String

        init(ref: RecordRef, keyPath: String) {
            self.ref = ref
            self.keyPath = UTF8Text.nfc(keyPath)
        }
    }

    struct Open {
        var depth: Int
        let oldValue: Value?
        /// Set by the store's own mutations; a pair that only the app opened and closed is a
        /// derived key's (its value is computed, not stored).
        var storedChange: Bool
        let change: ChangeKind
        let indexes: [Int]?
    }

    private(set) var open: [Key: Open] = [:]

    var isBalanced: Bool { open.isEmpty }

    /// Opens (or nests into) a pair.
    /// - Returns: whether this call opened the outermost pair.
    @discardableResult
    mutating func willChange(
        _ key: Key, oldValue: @autoclosure () throws -> Value?, stored: Bool,
        change: ChangeKind = .setting, indexes: [Int]? = nil
    ) rethrows -> Bool {
        if var existing = open[key] {
            existing.depth += 1
            existing.storedChange = existing.storedChange || stored
            open[key] = existing
            return false
        }
        open[key] = Open(depth: 1, oldValue: try oldValue(), storedChange: stored, change: change, indexes: indexes)
        return true
    }

    /// Closes a pair.
    /// - Returns: the outermost pair when this call closed it, nil while nested.
    /// - Throws: ``StoreError/Code/unbalancedChange`` when no pair is open for `key`.
    mutating func didChange(_ key: Key) throws(StoreError) -> Open? {
        guard var existing = open[key] else {
            throw StoreError(
                .unbalancedChange,
                "didChange for '\(key.keyPath)' of \(key.ref) without a matching willChange")
        }
        existing.depth -= 1
        if existing.depth > 0 {
            open[key] = existing
            return nil
        }
        open[key] = nil
        return existing
    }
}
