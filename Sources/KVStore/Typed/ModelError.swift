/// A failure of the typed layer: a value that does not decode as the model's property, a model
/// that does not encode as a record, a Swift key path with no record key, a model of another kind.
///
/// The description is one line naming the record and the key path when they are known:
///
/// ```swift
/// do {
///     _ = try store.fetch(Invoice.self, id: "1")
/// } catch let error as ModelError {
///     print(error)   // invoice/1 customer.address.zip: expected a string, found integer 42
/// }
/// ```
public struct ModelError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, for callers that react to some failures and report the others.
    public enum Code: String, Sendable, CaseIterable {
        /// A value of another type than the property's (`expected a string, found integer 42`).
        case typeMismatch
        /// A non-optional property whose key the record (or nested dictionary) does not hold.
        case missingKey
        /// An integer that does not fit the property's type, or a `UInt64` too large for a stored int.
        case valueOutOfRange
        /// A value of the right type that the property's type refuses (an enum's unknown raw value,
        /// a string that is no URL or UUID), or what a model's own `Codable` code threw.
        case invalidValue
        /// A model that does not encode as a dictionary of keys (a record's values).
        case notADictionary
        /// A Swift key path that the model's ``StoredModel/recordKeys`` does not bind to a key.
        case unknownKeyPath
        /// A model used with a record of another kind.
        case wrongKind
        /// Modification times asked of a kind that does not track them (``Kind/tracksModificationTimes``).
        case untrackedKind
    }

    /// What went wrong.
    public let code: Code
    /// What went wrong, for a person, without the record and key path (see ``description``).
    public let message: String
    /// Where in the record, as a key path: `customer.address.zip`, `lines[2].amount`; nil when the
    /// whole value is concerned.
    public let keyPath: String?
    /// The record involved, when known.
    public let ref: RecordRef?

    /// An error with `code` and `message`, naming the key path and record when known.
    public init(code: Code, message: String, keyPath: String? = nil, ref: RecordRef? = nil) {
        self.code = code
        self.message = message
        self.keyPath = keyPath
        self.ref = ref
    }

    /// `kind/id key.path: message`, leaving out what is not known.
    public var description: String {
        let place = [ref?.description, keyPath].compactMap { $0 }.joined(separator: " ")
        return place.isEmpty ? message : "\(place): \(message)"
    }

    /// This error, attributed to `ref` unless it already names a record.
    func attributed(to ref: RecordRef) -> Self {
        self.ref == nil ? Self(code: code, message: message, keyPath: keyPath, ref: ref) : self
    }

    /// This error with its key path under `prefix` (the record key a single value was read from).
    func nested(under prefix: String) -> Self {
        let path = keyPath.map { $0.hasPrefix("[") ? prefix + $0 : prefix + "." + $0 } ?? prefix
        return Self(code: code, message: message, keyPath: path, ref: ref)
    }
}

extension ModelError {
    /// `error` as a model error attributed to `ref`: coding errors thrown by a model's own code
    /// (or by the standard library's `Codable` conformances) keep their coding path.
    static func attributing(_ error: any Error, to ref: RecordRef) -> any Error {
        if let error = error as? ModelError { return error.attributed(to: ref) }
        if let error = error as? DecodingError { return ModelError(error).attributed(to: ref) }
        if let error = error as? EncodingError { return ModelError(error).attributed(to: ref) }
        return error
    }

    init(_ error: DecodingError) {
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            self.init(code: .typeMismatch, message: context.debugDescription, keyPath: CodingPathText.text(context.codingPath))
        case .keyNotFound(let key, let context):
            self.init(code: .missingKey, message: context.debugDescription, keyPath: CodingPathText.text(context.codingPath + [key]))
        case .dataCorrupted(let context):
            self.init(code: .invalidValue, message: context.debugDescription, keyPath: CodingPathText.text(context.codingPath))
        @unknown default:
            self.init(code: .invalidValue, message: "\(error)")
        }
    }

    init(_ error: EncodingError) {
        switch error {
        case .invalidValue(_, let context):
            self.init(code: .invalidValue, message: context.debugDescription, keyPath: CodingPathText.text(context.codingPath))
        @unknown default:
            self.init(code: .invalidValue, message: "\(error)")
        }
    }
}
