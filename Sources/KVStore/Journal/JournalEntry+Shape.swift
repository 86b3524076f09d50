/// Whether a journal entry read from outside (a journal stream) has the fields its change kind
/// needs, with keys a store could have journaled.
extension JournalEntry {
    /// What makes this entry one no store journals, or nil when its fields fit its change kind: a
    /// setting names a key path of record keys; an index-level change names one record key and
    /// has indexes (and, unless a removal, one new element for each); a record insertion carries a dictionary whose keys key paths can name;
    /// a kind declaration names `KIND/*` and carries declarations that read.
    /// Derived entries are not checked: nothing applies them, and their key path is the app's.
    var shapeProblem: String? {
        if isDerived { return nil }
        func unnameable(_ key: String) -> Bool { (try? WriteTransaction.checkKey(key)) == nil }
        switch change {
        case .recordDeleted:
            return nil
        case .kindDeclared:
            if ref.id != "*" || keyPath != nil || indexes != nil { return "a kind declaration that does not name KIND/* alone" }
            for value in [oldValue, newValue] {
                do { _ = try KindDeclaration(journalValue: value) } catch {
                    return "a declaration of kind '\(ref.kind)' that cannot be read: \(error)"
                }
            }
            return nil
        case .recordInserted:
            guard case .dictionary(let values)? = newValue else { return "a record insertion whose new value is not a dictionary" }
            return values.keys.first(where: unnameable).map { "a record insertion with key '\($0)', which no key path can name" }
        case .setting:
            guard let keyPath else { return "a setting without a key path" }
            let keys = KeyValuePath.keys(of: keyPath)
            return keys.contains(where: unnameable) ? "a setting of '\(keyPath)', which is not a key path of record keys" : nil
        case .insertion, .removal, .replacement:
            guard let keyPath, let indexes else { return "an index-level change without a key or indexes" }
            if unnameable(keyPath) { return "an index-level change of '\(keyPath)', which is not a record's key" }
            if change != .removal, newValue?.arrayValue?.count != indexes.count {
                return "an index-level \(change.rawValue) whose new elements do not match its \(indexes.count) indexes"
            }
            return nil
        }
    }
}
