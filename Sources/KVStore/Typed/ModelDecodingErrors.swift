/// The records of a kind that do not decode as its model, all of them: what
/// ``ReadTransaction/fetchAll(_:)`` throws, so that one pass finds every record a migration
/// must fix.
///
/// ```swift
/// do {
///     _ = try store.fetchAll(Contact.self)
/// } catch let failures as ModelDecodingErrors {
///     for error in failures.errors { print(error) }   // contact/7 age: expected an integer, found string "x"
/// }
/// ```
public struct ModelDecodingErrors: Error, Sendable, Equatable, CustomStringConvertible {
    /// The model type's name.
    public let modelType: String
    /// One error per record that does not decode, in id order, each naming its record
    /// (``ModelError/ref``) and, when known, the key path (``ModelError/keyPath``).
    public let errors: [ModelError]
    /// How many records of the kind did decode.
    public let decodedCount: Int

    /// The errors of `errors.count` records of `modelType`'s kind, `decodedCount` others decoding.
    public init(modelType: String, errors: [ModelError], decodedCount: Int) {
        self.modelType = modelType
        self.errors = errors
        self.decodedCount = decodedCount
    }

    /// `2 records do not decode as Contact (3 do): contact/1 name: …; contact/7 age: …`
    public var description: String {
        let records = errors.count == 1 ? "1 record does" : "\(errors.count) records do"
        return "\(records) not decode as \(modelType) (\(decodedCount) do): " + errors.map(\.description).joined(separator: "; ")
    }
}

extension ModelError {
    /// A record's decoding failure as a model error naming it: a model's own error that is no
    /// coding error becomes an ``Code/invalidValue`` carrying its description.
    static func decodingFailure(_ error: any Error, of ref: RecordRef) -> ModelError {
        if let error = ModelError.attributing(error, to: ref) as? ModelError { return error }
        return ModelError(code: .invalidValue, message: "\(error)", ref: ref)
    }
}
