/// What an observation reports, after KVO's `NSKeyValueObservingOptions`.
///
/// ```swift
/// let token = try store.observe(ada, keyPath: "name", options: [.initial, .old, .new]) { change in
///     print(change.oldValue?.stringValue ?? "none", "→", change.newValue?.stringValue ?? "none")
/// }
/// ```
public struct ObservationOptions: OptionSet, Sendable, Hashable {
    /// The options as bits.
    public let rawValue: UInt8

    /// The options whose bits are `rawValue`.
    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// Report the current value once, before ``Store/observe(_:keyPath:options:_:)`` returns (as a
    /// change with ``ObservedChange/isInitial`` set and no old value).
    public static let initial = ObservationOptions(rawValue: 1 << 0)
    /// Also report each change before it is made, inside the writing transaction (see
    /// ``ObservedChange/isPrior`` for what a prior callback may and may not do).
    public static let prior = ObservationOptions(rawValue: 1 << 1)
    /// Include the value before the change (``ObservedChange/oldValue``).
    public static let old = ObservationOptions(rawValue: 1 << 2)
    /// Include the value after the change (``ObservedChange/newValue``).
    public static let new = ObservationOptions(rawValue: 1 << 3)
}
