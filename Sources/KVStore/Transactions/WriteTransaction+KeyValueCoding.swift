import Foundation

/// Key-value coding writes (<doc:KeyValueCodingAndKinds>), each through will-change / did-change
/// and the journal.
extension WriteTransaction {
    /// Sets the value of `key` in the record; nil or `.null` removes it — except on a key that holds,
    /// or is declared as, a scalar, where the kind's `setNilValueForKey` hook decides (default: an error).
    /// A key the record does not hold (open kind) or the kind does not declare (closed kind) goes to
    /// the kind's `setValueForUndefinedKey` hook, whose default stores it for open kinds and throws
    /// for closed ones. Setting the value already stored does nothing: no journal entry.
    ///
    /// ```swift
    /// try txn.setValue("Ada", forKey: "name", of: ada)
    /// try txn.setValue(nil, forKey: "nickname", of: ada)   // removes the key
    /// ```
    /// - Throws: ``KeyValueCodingError`` (`recordNotFound`, `undefinedKey`, `typeMismatch`,
    ///   `nilForScalar`, `validationFailed` when validating), or what a hook throws.
    public func setValue(_ value: Value?, forKey key: String, of ref: RecordRef) throws {
        try setValue(value, forKey: key, of: ref, validating: store.options.validatesOnSet)
    }

    func setValue(_ value: Value?, forKey key: String, of ref: RecordRef, validating: Bool) throws {
        let key = UTF8Text.nfc(key)  // one spelling per key: hooks, validators and the journal see it
        try Self.checkKey(key)
        var value = value?.isNull == true ? nil : value
        let kind = try effectiveKind(named: ref.kind)
        if let kind, kind.isClosed, !kind.declares(key) {
            guard try contains(ref) else { throw KeyValueCodingError.recordNotFound(ref) }
            guard let hook = kind.setValueForUndefinedKey else {
                throw KeyValueCodingError.undefinedKey(key, kind: kind.name, ref: ref, writing: true)
            }
            return try hook(value, key, ref, self)
        }
        if let kind, !kind.isClosed, let hook = kind.setValueForUndefinedKey, try storedValue(forKey: key, of: ref) == nil {
            return try hook(value, key, ref, self)
        }
        if validating { try validateValue(&value, forKey: key, of: ref) }
        try store(value, forKey: key, of: ref, kind: kind)
    }

    /// Checks a record's top-level key: one that a key path can name (not empty, no `.`, not
    /// starting with `@`). Nested dictionaries may hold any keys. Keys are stored in NFC
    /// (``UTF8Text/nfc(_:)``): the writers normalise them before this check.
    /// - Returns: whether the key is ASCII (and so already in NFC).
    @discardableResult
    static func checkKey(_ key: String) throws(KeyValueCodingError) -> Bool {
        let valid = key.utf8.withContiguousStorageIfAvailable { bytes in
            guard let base = bytes.baseAddress, !bytes.isEmpty, bytes[0] != UInt8(ascii: "@") else { return false }
            return memchr(base, Int32(UInt8(ascii: ".")), bytes.count) == nil
        } ?? !(key.isEmpty || key.utf8.first == UInt8(ascii: "@") || key.utf8.contains(UInt8(ascii: ".")))
        guard valid else {
            throw KeyValueCodingError.invalidKeyPath(
                key, problem: "a record's key must be non-empty, without '.', and not start with '@', so that key paths can name it")
        }
        return UTF8Text.isASCII(key)
    }

    /// Stores `value` under `key` as given, without the undefined-key hooks: what the default
    /// `setValueForUndefinedKey` does for open kinds, and what a hook calls to store under another
    /// key. A closed kind's undeclared keys are still refused; declared types, the nil-for-scalar
    /// rule, will/did-change and the journal still apply.
    public func storeValue(_ value: Value?, forKey key: String, of ref: RecordRef) throws {
        let key = UTF8Text.nfc(key)
        try Self.checkKey(key)
        try store(value, forKey: key, of: ref, kind: effectiveKind(named: ref.kind))
    }

    /// ``storeValue(_:forKey:of:)`` for a key already checked, with the kind already looked up.
    private func store(_ value: Value?, forKey key: String, of ref: RecordRef, kind: Kind?) throws {
        var new = value?.isNull == true ? nil : value
        if let kind, kind.isClosed, !kind.declares(key) {
            throw KeyValueCodingError.undefinedKey(key, kind: kind.name, ref: ref, writing: true)
        }
        if new == nil, let scalar = scalarType(of: key, holding: try storedValue(forKey: key, of: ref), kind: kind) {
            guard let hook = kind?.setNilValueForKey else {
                throw KeyValueCodingError.nilForScalar(key: key, type: scalar, ref: ref)
            }
            new = try hook(key, ref)
            if new?.isNull == true { new = nil }
        }
        if let kind { new = try checkDeclaredType(new, forKey: key, kind: kind, ref: ref) }
        try replaceTracked(new, forKey: key, of: ref)
    }

    /// Sets one stored key inside a will/did-change pair, writing and journaling only when the value
    /// differs from the stored one.
    func replaceTracked(_ new: Value?, forKey key: String, of ref: RecordRef) throws {
        let trackKey = ChangeTracker.Key(ref: ref, keyPath: key)
        var opened = false
        _ = try replaceStoredValue(new, forKey: key, of: ref) { old in
            guard old != new else { return false }
            willChange(trackKey, oldValue: old, stored: true)
            opened = true
            return true
        }
        if opened, let closed = try tracker.didChange(trackKey) { try journalIfChanged(closed, key: trackKey, new: new) }
    }

    private func scalarType(of key: String, holding old: Value?, kind: Kind?) -> ValueType? {
        if let declared = kind?.declaredType(of: key), declared.isScalar { return declared }
        if let type = old?.type, type.isScalar { return type }
        return nil
    }

    /// The value as the kind declares it: an int widened for a `double` key, and a double with an
    /// integral value (`2.0`, as some JSON writers print ints) an int for an `int` key; any other
    /// type mismatch (`2.5` for an `int` key) throws.
    func checkDeclaredType(_ value: Value?, forKey key: String, kind: Kind, ref: RecordRef) throws(KeyValueCodingError) -> Value? {
        guard let value, let declared = kind.declaredType(of: key), value.type != declared else { return value }
        if declared == .double, case .int(let i) = value { return .double(Double(i)) }
        if declared == .int, case .double(let d) = value, let i = Int64(exactly: d) { return .int(i) }
        throw KeyValueCodingError.typeMismatch(key: key, declared: declared, given: value.type, ref: ref)
    }

    /// Removes `key` from the record (a no-op when it holds none). Unlike setting nil, removal is
    /// explicit, so the nil-for-scalar hook is not consulted.
    public func removeValue(forKey key: String, of ref: RecordRef) throws {
        let key = UTF8Text.nfc(key)
        if let kind = try effectiveKind(named: ref.kind), kind.isClosed, !kind.declares(key) {
            throw KeyValueCodingError.undefinedKey(key, kind: kind.name, ref: ref, writing: true)
        }
        try replaceTracked(nil, forKey: key, of: ref)
    }

    /// Sets every key of `values` (Foundation's `setValuesForKeysWithDictionary:`); `null` means nil.
    /// All or nothing: an error for one key leaves the transaction's caller to abort.
    public func setValuesForKeys(_ values: [String: Value], of ref: RecordRef) throws {
        for key in values.keys.sorted() { try setValue(values[key], forKey: key, of: ref) }
    }

    /// Runs the kind's checks for `key` on `value`: the declared type, then the key's validator,
    /// which may accept it, rewrite it (sanitise) or reject it.
    ///
    /// ```swift
    /// var email: Value? = " ada@example.com "
    /// try txn.validateValue(&email, forKey: "email", of: ada)   // trimmed, or throws
    /// ```
    /// - Throws: ``KeyValueCodingError`` `typeMismatch` or `validationFailed` (with the validator's reason).
    public func validateValue(_ value: inout Value?, forKey key: String, of ref: RecordRef) throws {
        guard let kind = try effectiveKind(named: ref.kind) else { return }
        if let validator = kind.validators[key] {
            do {
                try validator(&value, key, ref)
            } catch let error as KeyValueCodingError {
                throw error
            } catch {
                throw KeyValueCodingError.validationFailed(key: key, reason: ErrorReason.text(of: error), ref: ref)
            }
        }
        value = try checkDeclaredType(value, forKey: key, kind: kind, ref: ref)
    }

    /// Validates, then sets: ``validateValue(_:forKey:of:)`` followed by ``setValue(_:forKey:of:)``.
    public func validatingSetValue(_ value: Value?, forKey key: String, of ref: RecordRef) throws {
        var value = value?.isNull == true ? nil : value
        try validateValue(&value, forKey: key, of: ref)
        try setValue(value, forKey: key, of: ref, validating: false)
    }
}
