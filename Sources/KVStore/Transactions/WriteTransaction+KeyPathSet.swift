/// Setting through a key path.
extension WriteTransaction {
    /// Sets the value at a dot-separated key path: through nested dictionaries of the record, and
    /// through references into other records. The journal entry names the whole key path and
    /// carries the old and new values at its end.
    ///
    /// ```swift
    /// try txn.setValue("Paris", forKeyPath: "address.city", of: ada)
    /// try txn.setValue("William", forKeyPath: "spouse.name", of: ada)   // sets it on the spouse's record
    /// ```
    /// A path of several keys walks the values stored in the record: its first key must be stored
    /// (the undefined-key hooks, which may compute values, apply to single keys only). With the
    /// store's `validatesOnSet`, the first key's validator sees the whole new top-level value; when
    /// it rewrites it, the change is journaled as a setting of that key.
    ///
    /// - Throws: ``KeyValueCodingError`` `missingIntermediate` (with the path) when an intermediate
    ///   dictionary does not exist, `notAContainer` when it is not a dictionary or reference,
    ///   `invalidKeyPath` for operators (a computed value cannot be set).
    public func setValue(_ value: Value?, forKeyPath keyPath: String, of ref: RecordRef) throws {
        let path = try KeyValuePath(keyPath)
        var keys: [String] = []
        for component in path.components {
            guard case .key(let key) = component else {
                throw KeyValueCodingError.invalidKeyPath(keyPath, problem: "a collection operator's result cannot be set")
            }
            keys.append(key)
        }
        try setValue(value, at: keys[...], of: ref, fullPath: keyPath, removing: false)
    }

    /// Removes the value at a dot-separated key path (a no-op when there is none, or when an
    /// intermediate is missing): like
    /// ``setValue(_:forKeyPath:of:)`` with nil, except that the last key is removed explicitly,
    /// so the nil-for-scalar hook is not consulted (``removeValue(forKey:of:)``).
    public func removeValue(forKeyPath keyPath: String, of ref: RecordRef) throws {
        let path = try KeyValuePath(keyPath)
        let keys = try path.components.map { component throws(KeyValueCodingError) -> String in
            guard case .key(let key) = component else {
                throw KeyValueCodingError.invalidKeyPath(keyPath, problem: "a collection operator's result cannot be removed")
            }
            return key
        }
        if keys.count > 1, try value(forKeyPath: keyPath, of: ref) == nil {
            guard try contains(ref) else { throw KeyValueCodingError.recordNotFound(ref) }
            return
        }
        try setValue(nil, at: keys[...], of: ref, fullPath: keyPath, removing: true)
    }

    private func setValue(
        _ value: Value?, at keys: ArraySlice<String>, of ref: RecordRef, fullPath: String, removing: Bool
    ) throws {
        let first = keys.first!
        if keys.count == 1 {
            return removing ? try removeValue(forKey: first, of: ref) : try setValue(value, forKey: first, of: ref)
        }
        if let kind = try effectiveKind(named: ref.kind), kind.isClosed, !kind.declares(first) {
            throw KeyValueCodingError.undefinedKey(first, kind: kind.name, ref: ref, writing: true)
        }
        let top = try storedValue(forKey: first, of: ref)
        if case .reference(let target)? = top {
            guard try contains(target) else {
                throw KeyValueCodingError.missingIntermediate(keyPath: fullPath, missing: first, ref: ref)
            }
            return try setValue(value, at: keys.dropFirst(), of: target, fullPath: fullPath, removing: removing)
        }
        guard case .dictionary(let dictionary)? = top else {
            if top == nil { throw KeyValueCodingError.missingIntermediate(keyPath: fullPath, missing: first, ref: ref) }
            throw KeyValueCodingError.notAContainer(key: keys.dropFirst().first!, subject: "'\(first)'", type: top!.type, keyPath: fullPath)
                .attributed(to: ref)
        }
        let outcome = try replacing(value, at: keys.dropFirst(), in: dictionary, walked: [first], fullPath: fullPath, ref: ref)
        switch outcome {
        case .reference(let target, let rest):
            try setValue(value, at: rest, of: target, fullPath: fullPath, removing: removing)
        case .updated(let newTop, let old, let leafPath):
            let new = value?.isNull == true ? nil : value
            if old == new { return }
            if store.options.validatesOnSet && !removing {
                var validated: Value? = .dictionary(newTop)
                try validateValue(&validated, forKey: first, of: ref)
                if validated != .dictionary(newTop) { return try storeValue(validated, forKey: first, of: ref) }
            }
            try checkNesting(of: .dictionary(newTop), outerLevels: 1, keyPath: fullPath, ref: ref)
            let trackKey = ChangeTracker.Key(ref: ref, keyPath: leafPath)
            _ = try replaceStoredValue(.dictionary(newTop), forKey: first, of: ref) { _ in
                willChange(trackKey, oldValue: old, stored: true)  // once the record is known to fit
                return true
            }
            if let closed = try tracker.didChange(trackKey) { try journalIfChanged(closed, key: trackKey, new: new) }
        }
    }

    private enum Outcome {
        /// The path continues in another record.
        case reference(RecordRef, ArraySlice<String>)
        /// The top-level dictionary with the leaf replaced, the leaf's old value, and the path.
        case updated([String: Value], old: Value?, path: String)
    }

    private func replacing(
        _ value: Value?, at keys: ArraySlice<String>, in dictionary: [String: Value],
        walked: [String], fullPath: String, ref: RecordRef
    ) throws -> Outcome {
        let key = keys.first!
        var dictionary = dictionary
        if keys.count == 1 {
            let old = dictionary[key]
            dictionary[key] = value?.isNull == true ? nil : value
            return .updated(dictionary, old: old, path: (walked + [key]).joined(separator: "."))
        }
        let here = (walked + [key]).joined(separator: ".")
        switch dictionary[key] {
        case .dictionary(let inner)?:
            let outcome = try replacing(value, at: keys.dropFirst(), in: inner, walked: walked + [key], fullPath: fullPath, ref: ref)
            guard case .updated(let newInner, let old, let path) = outcome else { return outcome }
            dictionary[key] = .dictionary(newInner)
            return .updated(dictionary, old: old, path: path)
        case .reference(let target)?:
            guard try contains(target) else {
                throw KeyValueCodingError.missingIntermediate(keyPath: fullPath, missing: here, ref: ref)
            }
            return .reference(target, keys.dropFirst())
        case nil, .null?:
            throw KeyValueCodingError.missingIntermediate(keyPath: fullPath, missing: here, ref: ref)
        case let other?:
            throw KeyValueCodingError.notAContainer(key: keys.dropFirst().first!, subject: "'\(here)'", type: other.type, keyPath: fullPath)
                .attributed(to: ref)
        }
    }
}
