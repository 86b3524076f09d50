/// The declarative rules of a kind: what the store's kind catalog keeps of a ``Kind`` and every
/// writer enforces — open or closed, the declared keys and their types, the indexes, whether
/// modification times are tracked, and the schema version. A kind's closures (the hooks,
/// validators and dependent keys) stay with the process that registered them.
///
/// ```swift
/// let declaration = KindDeclaration(person)              // person: a Kind
/// let rules = declaration.applied(to: registeredPerson)  // the stored rules, this process's hooks
/// ```
struct KindDeclaration: Sendable, Equatable {
    /// A closed kind's keys and their types (nil: any type); nil for an open kind.
    var declaredKeys: [String: ValueType?]?
    var tracksModificationTimes = false
    var indexes: [KindIndex] = []
    var schemaVersion = 0
    /// The names of the migrations applied to the store, in the order they ran: held only by the
    /// declaration of ``MigrationLog/kind``, which declares nothing else.
    var migrations: [String] = []

    /// An open kind's, with no indexes, no modification times and schema version 0: the catalog
    /// keeps no entry for a kind declared so.
    static let open = KindDeclaration()

    init() {}

    /// The declaration of ``MigrationLog/kind``: the names of the migrations applied.
    init(migrations: [String]) {
        self.migrations = migrations
    }

    /// The declarative part of `kind`, its keys in NFC (as writers normalise the keys they check).
    init(_ kind: Kind) {
        declaredKeys = kind.declaredKeys
        if let keys = declaredKeys, !keys.keys.allSatisfy({ UTF8Text.isASCII($0) }) {
            declaredKeys = Dictionary(keys.map { (UTF8Text.nfc($0.key), $0.value) }, uniquingKeysWith: { $1 })
        }
        tracksModificationTimes = kind.tracksModificationTimes
        indexes = kind.indexes
        schemaVersion = kind.schemaVersion
    }

    /// Whether it declares nothing an open kind does not (``open``).
    var isOpen: Bool { self == .open }

    /// `kind` with these rules in place of its own, its closures kept.
    func applied(to kind: Kind) -> Kind {
        var kind = kind
        kind.declaredKeys = declaredKeys
        kind.tracksModificationTimes = tracksModificationTimes
        kind.indexes = indexes
        kind.schemaVersion = schemaVersion
        return kind
    }

    /// Whether `kind` declares nothing an open kind does not (``isOpen`` without building one).
    static func isOpen(_ kind: Kind) -> Bool {
        kind.declaredKeys == nil && !kind.tracksModificationTimes && kind.indexes.isEmpty && kind.schemaVersion == 0
    }

    /// What a record holding `values` breaks of these rules, when it breaks any: the first key
    /// (in key order) that a closed kind does not declare, or that holds a value of another type
    /// than the declared one (an int is fine for a `double` key: a write stores it as a double).
    func violation(by values: [String: Value]) -> (key: String, declared: ValueType?, found: ValueType)? {
        guard let declaredKeys else { return nil }
        for key in values.keys.sorted(by: UTF8Text.precedes) {
            let value = values[key]!
            guard let declared = declaredKeys[key] else { return (key, nil, value.type) }
            if let type = declared, !Self.accepts(type, value) { return (key, type, value.type) }
        }
        return nil
    }

    /// Whether a key declared `type` may hold `value`.
    static func accepts(_ type: ValueType, _ value: Value) -> Bool {
        value.type == type || (type == .double && value.type == .int)
    }
}

extension Kind {
    /// This kind's closures with the declarative rules of `declared` (a kind from the catalog).
    func withDeclaration(of declared: Kind) -> Kind {
        var kind = self
        kind.declaredKeys = declared.declaredKeys
        kind.tracksModificationTimes = declared.tracksModificationTimes
        kind.indexes = declared.indexes
        kind.schemaVersion = declared.schemaVersion
        return kind
    }
}
