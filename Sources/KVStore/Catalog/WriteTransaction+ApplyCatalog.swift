/// The store's kind catalog when applying journal entries (replication, `journal apply`,
/// replay): a `kindDeclared` entry changes this store's catalog, and every other entry must
/// keep the rules of this store's catalog, as a local write must.
extension WriteTransaction {
    /// Applies a ``ChangeKind/kindDeclared`` entry: the kind's declaration becomes the entry's
    /// new one (whatever this store's was: the source's catalog wins), unless this store's records
    /// break it.
    /// - Parameter changed: set to whether the catalog changed (false: this store had the
    ///   declaration already).
    /// - Returns: nil when applied (or already so), or why not.
    func applyDeclaration(_ entry: JournalEntry, changed: inout Bool) throws -> String? {
        let kind = entry.ref.kind
        let new: KindDeclaration
        do { new = try KindDeclaration(journalValue: entry.newValue) } catch {
            return "the declaration of kind '\(kind)' cannot be read: \(error)"
        }
        do { changed = try declare(new, ofKind: kind) } catch let refusal as KeyValueCodingError { return refusal.description }
        return nil
    }

    /// What this store's catalog refuses in `entry`, a change of a record: a key a closed kind does
    /// not declare, a value of another type than declared — the errors a local write gives.
    /// - Returns: nil when the rules allow it.
    func catalogRefusal(of entry: JournalEntry) throws -> String? {
        guard let kind = try effectiveKind(named: entry.ref.kind), let declaredKeys = kind.declaredKeys else { return nil }
        let ref = entry.ref
        func refusal(ofKey key: String, holding value: Value?) -> String? {
            guard let declared = declaredKeys[key] else {
                return KeyValueCodingError.undefinedKey(key, kind: kind.name, ref: ref, writing: true).description
            }
            guard let type = declared, let value, !KindDeclaration.accepts(type, value) else { return nil }
            return KeyValueCodingError.typeMismatch(key: key, declared: type, given: value.type, ref: ref).description
        }
        switch entry.change {
        case .recordInserted:
            guard case .dictionary(let values)? = entry.newValue else { return nil }  // the apply refuses it
            for key in values.keys.sorted(by: UTF8Text.precedes) {
                if let refused = refusal(ofKey: key, holding: values[key]) { return refused }
            }
            return nil
        case .setting:
            guard let keyPath = entry.keyPath else { return nil }
            let keys = KeyValuePath.keys(of: UTF8Text.nfc(keyPath))
            // Deeper in a key, only the key's own dictionary changes.
            return refusal(ofKey: keys[0], holding: keys.count == 1 ? entry.newValue : nil)
        case .insertion, .removal, .replacement:
            guard let key = entry.keyPath else { return nil }
            return refusal(ofKey: UTF8Text.nfc(key), holding: .array([]))
        case .recordDeleted, .kindDeclared:
            return nil
        }
    }
}
