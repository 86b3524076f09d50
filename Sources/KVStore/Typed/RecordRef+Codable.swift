/// A reference in a model: ``ValueEncoder`` stores it as a ``Value/reference(_:)``; other coders
/// (JSON) write it as its `kind/id` string.
///
/// ```swift
/// struct Invoice: Codable { var amount: Int; var customer: RecordRef }
/// ```
extension RecordRef: Codable {
    /// Reads the reference from its `kind/id` string (``ValueDecoder`` also reads a reference value).
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do {
            try self.init(text)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    /// Writes the reference as its `kind/id` string (``ValueEncoder`` writes a reference value).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
