/// The rules of one kind of record: open or closed, declared keys and their types, and the
/// key-value-coding hooks that Foundation lets an `NSObject` subclass override.
///
/// A kind is **open** (schemaless, the default: any key may be read and set) or **closed** (it
/// declares its keys; reading or setting any other key calls the undefined-key hooks, whose
/// defaults are errors). Declared keys may carry a ``ValueType``; setting a value of another type
/// is an error (an int is accepted, and stored as a double, for a key declared `double`).
///
/// The declarative part — open or closed, declared keys and types, ``indexes``,
/// ``tracksModificationTimes``, ``schemaVersion`` — is stored in the store's kind catalog by
/// ``Store/register(_:)``, and every writer in every process enforces it; the closures (hooks,
/// validators, ``keyPathsAffecting``) stay in the process that registered them, on top of the
/// stored declaration. See <doc:KindCatalog>.
///
/// ```swift
/// var person = try Kind("person", keys: ["name": .string, "age": .int, "tags": .array])
/// person.setNilValueForKey = { key, ref in .int(0) }          // nil on a scalar stores 0
/// person.valueForUndefinedKey = { key, ref, txn in            // an alias for a renamed key
///     key == "fullName" ? try txn.value(forKey: "name", of: ref) : nil
/// }
/// person.validators["name"] = { value, key, ref in           // sanitise: trim whitespace
///     if case .string(let s)? = value { value = .string(s.trimmingCharacters(in: .whitespaces)) }
/// }
/// try store.register(person)
/// ```
public struct Kind: Sendable {
    /// Called when nil (or `null`) is set on a key that holds, or is declared as, a scalar
    /// (bool, int, double, date). Returns the value to store instead (nil removes the key), or throws.
    public typealias SetNilValueHook = @Sendable (_ key: String, _ ref: RecordRef) throws -> Value?
    /// Called when an undefined key is read: for open kinds a key the record does not hold, for
    /// closed kinds a key the kind does not declare. Returns the value to report (nil for none).
    public typealias ValueForUndefinedKeyHook =
        @Sendable (_ key: String, _ ref: RecordRef, _ transaction: ReadTransaction) throws -> Value?
    /// Called when an undefined key is set. The hook stores what it wants through `transaction`
    /// (for instance under a renamed key); ``WriteTransaction/storeValue(_:forKey:of:)`` stores
    /// under the key as given.
    public typealias SetValueForUndefinedKeyHook =
        @Sendable (_ value: Value?, _ key: String, _ ref: RecordRef, _ transaction: WriteTransaction) throws -> Void
    /// Accepts a value (returns), sanitises it (assigns a new one to `value`), or rejects it (throws;
    /// the error's description becomes the reason in a ``KeyValueCodingError/Code/validationFailed`` error).
    public typealias Validator = @Sendable (_ value: inout Value?, _ key: String, _ ref: RecordRef) throws -> Void

    /// The kind's name, the `kind` part of `kind/id`.
    public let name: String
    /// For a closed kind, its keys and their types (nil: any type). Nil for an open kind.
    public var declaredKeys: [String: ValueType?]?
    /// Foundation's `setNilValueForKey:`: what nil set on a scalar key stores instead (nil, the
    /// default: the set fails with ``KeyValueCodingError/Code/nilForScalar``).
    public var setNilValueForKey: SetNilValueHook?
    /// Foundation's `valueForUndefinedKey:`: the value of an undefined key — for aliases and
    /// computed keys (nil, the default: nil for an open kind, an error for a closed one).
    public var valueForUndefinedKey: ValueForUndefinedKeyHook?
    /// Foundation's `setValue:forUndefinedKey:`: what setting an undefined key does (nil, the
    /// default: an open kind stores it, a closed one fails with
    /// ``KeyValueCodingError/Code/undefinedKey``).
    public var setValueForUndefinedKey: SetValueForUndefinedKeyHook?
    /// Validators by key, run by ``WriteTransaction/validateValue(_:forKey:of:)``, by validating
    /// sets, and by every set when the store's `validatesOnSet` option is on.
    public var validators: [String: Validator] = [:]
    /// Dependent keys for observation (KVO's `keyPathsForValuesAffectingValueForKey:`): for a key
    /// whose value is derived — typically computed by ``valueForUndefinedKey`` — the key paths,
    /// from the same record, whose changes change it. An observer of the key is notified when any
    /// of them changes. Dependencies chain (an input may itself be a derived key) and may go
    /// through references (`"owner.name"`).
    ///
    /// ```swift
    /// person.keyPathsAffecting["fullName"] = ["first", "last"]
    /// person.keyPathsAffecting["label"] = ["fullName", "employer.name"]
    /// ```
    public var keyPathsAffecting: [String: [String]] = [:]
    /// Whether the store records when each key of this kind's records last changed, and where
    /// (``KeyStamp``), for ``WriteTransaction/merge(_:from:policy:)`` (default false). Stored in
    /// the store's kind catalog when the kind is registered (<doc:KindCatalog>): from then on every
    /// writer stamps the kind's changes — any process, registered or not, the `kvstore` tool,
    /// replication and replay. Changes made before the kind tracked them are not stamped: register
    /// it before its records are written.
    public var tracksModificationTimes = false
    /// The kind's secondary indexes (``KindIndex``), kept by every write in the same transaction
    /// as the records. Stored in the store's kind catalog.
    public var indexes: [KindIndex] = []
    /// A version number for the kind's rules, for apps that migrate their records (default 0).
    /// Stored in the store's kind catalog, so an app can read which version the store's records
    /// follow (``ReadTransaction/declaredKind(named:)``) before it registers its own.
    public var schemaVersion: Int = 0

    /// An open kind: any key may be read and set.
    public init(_ name: String) throws(RecordRefError) {
        try RecordRef.validate(kind: name)
        self.name = name
    }

    /// A closed kind declaring `keys`, each with its type or nil for any type.
    public init(_ name: String, keys: [String: ValueType?]) throws(RecordRefError) {
        try RecordRef.validate(kind: name)
        self.name = name
        self.declaredKeys = keys
    }

    /// Whether the kind declares its keys.
    public var isClosed: Bool { declaredKeys != nil }

    /// The declared type of `key`, when the kind declares one.
    public func declaredType(of key: String) -> ValueType? {
        declaredKeys?[key] ?? nil
    }

    /// Whether `key` is declared (always false for open kinds).
    public func declares(_ key: String) -> Bool {
        declaredKeys?[key] != nil
    }
}
