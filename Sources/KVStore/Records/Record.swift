/// A record as read from the store: its reference and its values.
public struct Record: Sendable, Hashable {
    public let ref: RecordRef
    public var values: [String: Value]

    public init(ref: RecordRef, values: [String: Value]) {
        self.ref = ref
        self.values = values
    }
}
