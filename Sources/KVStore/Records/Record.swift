/// A record as read from the store: its reference and its values.
public struct Record: Sendable, Hashable {
    /// The record's reference, `kind/id`.
    public let ref: RecordRef
    /// The record's values by key (no `null` at the top level).
    public var values: [String: Value]

    /// A record of `ref` holding `values`.
    public init(ref: RecordRef, values: [String: Value]) {
        self.ref = ref
        self.values = values
    }
}
