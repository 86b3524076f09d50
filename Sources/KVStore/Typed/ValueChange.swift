/// How one key of a record changed: its value before and after (nil: the key was absent).
///
/// ```swift
/// let changes = try store.update(ada, from: ["name": "Ada Lovelace", "born": 1815])
/// changes["name"]   // ValueChange(old: "Ada", new: "Ada Lovelace")
/// ```
public struct ValueChange: Sendable, Hashable, CustomStringConvertible {
    /// The value before; nil when the key was absent (inserted).
    public var old: Value?
    /// The value after; nil when the key was removed.
    public var new: Value?

    /// A change from `old` to `new` (nil: absent).
    public init(old: Value?, new: Value?) {
        self.old = old
        self.new = new
    }

    /// `old → new`, `(absent)` for a missing side.
    public var description: String {
        "\(old.map { "\($0)" } ?? "(absent)") → \(new.map { "\($0)" } ?? "(absent)")"
    }
}
