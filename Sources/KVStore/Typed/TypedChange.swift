/// A change of an observed model property, with its old and new values decoded as the
/// property's type (see ``Store/observe(_:id:_:options:_:)``).
///
/// A value that does not decode (the record was written with another type) is nil here and
/// ``error`` says why; the untyped values stay in ``change``. For index-level changes of an array
/// property the values are the elements removed or inserted, decoded as the property's type.
public struct TypedChange<V> {
    /// The change as key-value observing reports it: kind, indexes, commit, origin.
    public let change: ObservedChange
    /// The value before, when the observation asked for ``ObservationOptions/old`` and there was one.
    public let oldValue: V?
    /// The value after, when the observation asked for ``ObservationOptions/new`` and there is one.
    public let newValue: V?
    /// The first value that did not decode as `V`, or nil.
    public let error: ModelError?

    init(_ change: ObservedChange, key: String) where V: Decodable {
        var firstError: ModelError?
        func decoded(_ value: Value?) -> V? {
            guard let value else { return nil }
            do {
                return try ReadTransaction.decode(V.self, from: value, key: key, ref: change.ref)
            } catch {
                if firstError == nil {
                    firstError = (error as? ModelError) ?? ModelError(code: .invalidValue, message: "\(error)", keyPath: key, ref: change.ref)
                }
                return nil
            }
        }
        self.change = change
        self.oldValue = decoded(change.oldValue)
        self.newValue = decoded(change.newValue)
        self.error = firstError
    }
}

extension TypedChange: Sendable where V: Sendable {}

extension Store {
    /// Observes one property of a stored model, by Swift key path: ``observe(_:keyPath:options:_:)``
    /// on its record key, with the values decoded as the property's type.
    ///
    /// ```swift
    /// let token = try store.observe(Contact.self, id: "1", \.name, options: [.old, .new]) { change in
    ///     print(change.oldValue ?? "none", "→", change.newValue ?? "none")   // Ada → Ada Lovelace
    /// }
    /// ```
    /// - Throws: ``ModelError/Code/unknownKeyPath``, or what ``observe(_:keyPath:options:_:)`` throws.
    public func observe<M: StoredModel, V: Decodable & Sendable>(
        _ type: M.Type, id: M.ID, _ keyPath: KeyPath<M, V>, options: ObservationOptions = [.new],
        _ callback: @escaping @Sendable (TypedChange<V>) throws -> Void
    ) throws -> ObservationToken {
        let key = try M.recordKey(for: keyPath)
        let ref = try read { try $0.resolvingUUIDSpelling(M.ref(id: id)) }  // a legacy uppercase record too
        return try observe(ref, keyPath: key, options: options) { change in
            try callback(TypedChange(change, key: key))
        }
    }
}
