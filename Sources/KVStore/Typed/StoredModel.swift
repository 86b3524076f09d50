/// A Swift type stored as the records of one kind: its `Codable` encoding is the record's values
/// (see ``ValueEncoder`` for the mapping), its `id` names the record (`kind/id`).
///
/// ```swift
/// struct Contact: StoredModel {
///     static let kind = "contact"
///     var id: String
///     var name: String
///     var email: String?
///     var address: Address?
///
///     // Typed get, set and observe name properties by Swift key path: bind each one to its
///     // record key (through the coding keys, so a renamed key stays right).
///     static var recordKeys: [PartialKeyPath<Contact>: String] {
///         [\.name: CodingKeys.name.stringValue, \.email: CodingKeys.email.stringValue,
///          \.address: CodingKeys.address.stringValue, \.address?.city: "address.city"]
///     }
/// }
/// struct Address: Codable, Hashable { var city: String }
///
/// try store.insert(Contact(id: "1", name: "Ada"))
/// let ada = try store.fetch(Contact.self, id: "1")          // Contact?
/// try store.set(Contact.self, id: "1", \.email, to: "ada@example.com")
/// ```
///
/// The `id` is stored like any other property (under the key its coding key names) and is also
/// the record's id, as `String(describing: id)`: a `String`, an integer, a `UUID` (its lowercase
/// string, as its value is encoded; a record an older store keeps under the uppercase one is
/// still found), or any type whose description names one value only. Swift has no run-time names for key paths, so
/// the binding is a declared table (``recordKeys``): a key path missing from it is a
/// ``ModelError/Code/unknownKeyPath`` error, not a guess. A value may be a nested key path
/// (`"address.city"`), read and set through key-value coding.
public protocol StoredModel: Codable, Identifiable where ID: CustomStringConvertible {
    /// The kind of the records that hold this type.
    static var kind: String { get }
    /// The record key (or key path) of each property that typed access may name; default none.
    static var recordKeys: [PartialKeyPath<Self>: String] { get }
    /// Older names of record keys, for records written before a key was renamed: each current key
    /// to the names it had, newest first (default none). Decoding a record that lacks the key reads
    /// the first older name it holds; saving the model removes the older names. Top-level keys only.
    /// See <doc:Migrations>.
    static var keyAliases: [String: [String]] { get }
    /// The value a record that lacks a key decodes as, for properties added after records were
    /// written (default none): `["priority": 0]`. Top-level keys only. See <doc:Migrations>.
    static var defaultValues: [String: Value] { get }
}

extension StoredModel {
    public static var recordKeys: [PartialKeyPath<Self>: String] { [:] }
    public static var keyAliases: [String: [String]] { [:] }
    public static var defaultValues: [String: Value] { [:] }

    /// The reference of the record with id `id`.
    /// - Throws: ``RecordRefError`` for an invalid kind or id.
    public static func ref(id: ID) throws -> RecordRef {
        try RecordRef(kind: kind, id: RecordRef.id(describing: id))
    }

    /// The reference of this model's record.
    public var ref: RecordRef {
        get throws { try Self.ref(id: id) }
    }

    /// The record key of `id`, as the synthesized coding keys name it.
    static var idKey: String { "id" }

    /// The record key bound to `keyPath` in ``recordKeys``.
    /// - Throws: ``ModelError/Code/unknownKeyPath``.
    static func recordKey(for keyPath: PartialKeyPath<Self>) throws(ModelError) -> String {
        guard let key = recordKeys[keyPath] else {
            throw ModelError(
                code: .unknownKeyPath,
                message: "\(Self.self) binds no record key to \(keyPath); add it to \(Self.self).recordKeys")
        }
        return key
    }

    /// Checks that `ref` is a record of this type's kind.
    /// - Throws: ``ModelError/Code/wrongKind``.
    static func checkKind(of ref: RecordRef) throws(ModelError) {
        if ref.kind != kind {
            throw ModelError(code: .wrongKind, message: "\(Self.self) is stored as kind '\(kind)', not '\(ref.kind)'", ref: ref)
        }
    }
}
