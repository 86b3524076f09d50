import LMDB

/// The start of a binding: a record's key path, with transforms applied to its value.
///
/// ```swift
/// let binding = try store.from(ada, "name")
///     .map { $0?.stringValue ?? "nobody" }
///     .to(label, \.text)                        // sets label.text now, and on every change
/// let token = try store.from(invoice, "amount").to { amount in print(amount?.description ?? "none") }
/// ```
public struct BindingSource<Output: Sendable>: Sendable {
    let store: Store
    let ref: RecordRef
    let keyPath: String
    let transform: @Sendable (Value?) -> Output

    /// The value transformed by `transform`.
    public func map<Mapped: Sendable>(_ transform: @escaping @Sendable (Output) -> Mapped) -> BindingSource<Mapped> {
        let first = self.transform
        return BindingSource<Mapped>(store: store, ref: ref, keyPath: keyPath) { transform(first($0)) }
    }

    /// Calls `handler` with the (transformed) value now and after every change, like an
    /// observation with ``ObservationOptions/initial`` and ``ObservationOptions/new``.
    /// - Returns: the token that keeps the binding alive.
    public func to(_ handler: @escaping @Sendable (Output) -> Void) throws -> ObservationToken {
        let transform = self.transform
        return try store.observe(ref, keyPath: keyPath, options: [.initial, .new]) { handler(transform($0.newValue)) }
    }

    /// Sets `object`'s property `target` to the (transformed) value now and after every change,
    /// on the writing thread. The binding holds `object` weakly and lives as long as it does:
    /// the first change after the object is gone ends it. ``RecordBinding/cancel()`` ends it sooner.
    ///
    /// The key path must be `Sendable`, as a literal like `\.text` is when the property is not
    /// isolated to an actor: a property of a `@MainActor` object may not be set from the writing
    /// thread (bind it with ``to(_:)`` and hop to the main actor there).
    @discardableResult
    public func to<Object: AnyObject & Sendable>(
        _ object: Object, _ target: any ReferenceWritableKeyPath<Object, Output> & Sendable
    ) throws -> RecordBinding {
        let binding = RecordBinding()
        binding.hold(try to { [weak object, weak binding] value in
            guard let object else { return binding?.cancel() ?? () }
            object[keyPath: target] = value
        })
        return binding
    }
}

/// A binding made by `BindingSource.to(object, \.property)`: it lives as long as its target object, or
/// until ``cancel()``. Unlike an ``ObservationToken``, letting it go does not end it.
///
/// ```swift
/// let binding = try store.from(ada, "name").map { $0?.stringValue ?? "" }.to(label, \.text)
/// binding.cancel()   // stop before `label` goes away
/// ```
public final class RecordBinding: Sendable {
    private let token = LockedState<ObservationToken?>(nil)
    /// Keeps the binding alive until cancelled (the observation holds it).
    private let keeper = LockedState<RecordBinding?>(nil)

    init() {}

    func hold(_ observation: ObservationToken) {
        token.withLock { $0 = observation }
        keeper.withLock { $0 = self }
    }

    /// Ends the binding (again: nothing happens).
    public func cancel() {
        let ended = token.withLock { token -> ObservationToken? in
            defer { token = nil }
            return token
        }
        ended?.cancel()
        keeper.withLock { $0 = nil }
    }

    /// Whether the binding still sets its target.
    public var isActive: Bool { token.withLock { $0 != nil } }
}

extension Store {
    /// A binding from the value at `keyPath` of a record: `.map { }` it, then `.to(object, \.property)`
    /// or `.to { value in … }`. See ``BindingSource``.
    public func from(_ ref: RecordRef, _ keyPath: String) -> BindingSource<Value?> {
        BindingSource(store: self, ref: ref, keyPath: keyPath) { $0 }
    }
}
