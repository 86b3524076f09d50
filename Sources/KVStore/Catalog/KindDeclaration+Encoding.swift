/// The two forms of a declaration: meta's `catalog/<kind>` value (a format byte, then a
/// ``RecordCodec`` dictionary of its fields) and a `kindDeclared` journal entry's value (the same
/// fields and `format`, as a dictionary: what `kvstore journal list` shows).
///
/// ```json
/// {"format":1,"indexes":[{"folded":false,"keyPaths":["feed","published"],"unique":false}],
///  "keys":{"feed":"reference","published":"date","title":"string","notes":null},"schemaVersion":2}
/// ```
/// Fields at their default — `keys` of an open kind, no `indexes`, `tracksModificationTimes`
/// false, `schemaVersion` 0, no `migrations` — are left out; a declaration holding `migrations`
/// (only ``MigrationLog/kind``'s) is written in format 2, any other in format 1. Reading is
/// strict: an unknown field, a field of another type, an unknown type name or a newer format is
/// an error naming the kind.
extension KindDeclaration {
    /// The newest format this build reads: 1, or 2 for a declaration holding `migrations`.
    static let format: UInt8 = 2

    /// The format this declaration is written in: 1 unless it holds `migrations` (which a build
    /// reading format 1 only would refuse as an unknown field: this way it says "use a newer kvstore").
    var writtenFormat: UInt8 { migrations.isEmpty ? 1 : 2 }

    /// The declaration's fields, defaults left out.
    var fields: [String: Value] {
        var fields: [String: Value] = [:]
        if let declaredKeys {
            fields["keys"] = .dictionary(declaredKeys.mapValues { type in type.map { .string($0.rawValue) } ?? .null })
        }
        if !indexes.isEmpty {
            fields["indexes"] = .array(indexes.map { index in
                .dictionary([
                    "keyPaths": .array(index.keyPaths.map { .string($0.description) }),
                    "unique": .bool(index.isUnique), "folded": .bool(index.isFolded),
                ])
            })
        }
        if tracksModificationTimes { fields["tracksModificationTimes"] = true }
        if schemaVersion != 0 { fields["schemaVersion"] = .int(Int64(schemaVersion)) }
        if !migrations.isEmpty { fields["migrations"] = .array(migrations.map(Value.string)) }
        return fields
    }

    /// The value a `kindDeclared` journal entry carries: nil for ``open`` (no declaration).
    var journalValue: Value? {
        guard !isOpen else { return nil }
        var fields = self.fields
        fields["format"] = .int(Int64(writtenFormat))
        return .dictionary(fields)
    }

    /// The value of meta's `catalog/<kind>`.
    var encoded: [UInt8] { [writtenFormat] + RecordCodec.encode(fields) }

    /// Reads meta's `catalog/<kind>` value.
    init(encoded bytes: UnsafeRawBufferPointer) throws(DeclarationError) {
        guard let format = bytes.first else { throw DeclarationError("it is empty") }
        try Self.check(format: Int64(format))
        let fields: [String: Value]
        do { fields = try RecordCodec.decode(UnsafeRawBufferPointer(rebasing: bytes.dropFirst())) } catch {
            throw DeclarationError("\(error)")
        }
        try self.init(fields: fields)
    }

    /// Reads a `kindDeclared` journal entry's old or new value (nil: ``open``).
    init(journalValue: Value?) throws(DeclarationError) {
        guard let journalValue else { self = .open; return }
        guard case .dictionary(var fields) = journalValue else { throw DeclarationError("it is \(journalValue.type.withArticle), not a dictionary") }
        guard case .int(let format)? = fields.removeValue(forKey: "format") else { throw DeclarationError("it has no int 'format'") }
        try Self.check(format: format)
        try self.init(fields: fields)
    }

    private static func check(format: Int64) throws(DeclarationError) {
        if format > Int64(Self.format) {
            throw DeclarationError("it has format \(format), newer than this kvstore reads (\(Self.format)); use a newer kvstore", isNewer: true)
        }
        if format < 1 { throw DeclarationError("it has format \(format), which no kvstore writes") }
    }

    private init(fields: [String: Value]) throws(DeclarationError) {
        self.init()
        for (name, value) in fields {
            switch (name, value) {
            case ("keys", .dictionary(let keys)):
                var declared: [String: ValueType?] = [:]
                for (key, value) in keys {
                    if value.isNull { declared.updateValue(nil, forKey: key); continue }
                    guard let name = value.stringValue, let type = ValueType(rawValue: name) else {
                        throw DeclarationError("'keys' holds \(TypedJSON.string(from: value)), not a type name")
                    }
                    declared[key] = type
                }
                declaredKeys = declared
            case ("indexes", .array(let indexes)):
                self.indexes = try indexes.map(Self.index)
            case ("tracksModificationTimes", .bool(let flag)):
                tracksModificationTimes = flag
            case ("schemaVersion", .int(let version)):
                guard let version = Int(exactly: version) else { throw DeclarationError("'schemaVersion' is out of range") }
                schemaVersion = version
            case ("migrations", .array(let names)):
                migrations = names.compactMap(\.stringValue)
                guard migrations.count == names.count else { throw DeclarationError("'migrations' holds a value that is not a name") }
            case ("keys", _), ("indexes", _), ("tracksModificationTimes", _), ("schemaVersion", _), ("migrations", _):
                throw DeclarationError("'\(name)' is \(value.type.withArticle), not the expected type")
            default:
                throw DeclarationError("it has an unknown field '\(name)'")
            }
        }
    }

    /// An index from its dictionary form.
    private static func index(_ value: Value) throws(DeclarationError) -> KindIndex {
        guard case .dictionary(let fields) = value, case .array(let paths)? = fields["keyPaths"],
              fields.keys.allSatisfy(["keyPaths", "unique", "folded"].contains) else {
            throw DeclarationError("an index is not {keyPaths, unique, folded}: \(TypedJSON.string(from: value))")
        }
        let texts = paths.compactMap(\.stringValue)
        let unique = fields["unique"]?.boolValue, folded = fields["folded"]?.boolValue
        guard texts.count == paths.count, unique != nil || fields["unique"] == nil, folded != nil || fields["folded"] == nil else {
            throw DeclarationError("an index has fields of the wrong type: \(TypedJSON.string(from: value))")
        }
        do { return try KindIndex(texts, unique: unique ?? false, folded: folded ?? false) } catch {
            throw DeclarationError("an index is invalid: \(error)")
        }
    }
}

/// Why a declaration read from the catalog or a journal entry cannot be used.
struct DeclarationError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, e.g. `it has an unknown field 'x'`.
    let problem: String
    /// Whether it was written by a newer kvstore (its format is newer).
    let isNewer: Bool

    init(_ problem: String, isNewer: Bool = false) {
        self.problem = problem
        self.isNewer = isNewer
    }

    var description: String { problem }

    /// The store's error for kind `kind`'s stored declaration: ``StoreError/Code/newerFormat`` or
    /// ``StoreError/Code/corrupt``, naming the kind.
    func storeError(kind: String, path: String) -> StoreError {
        isNewer
            ? StoreError(.newerFormat, "the catalog's declaration of kind '\(kind)' cannot be read: \(problem)", path: path)
            : StoreError(.corrupt, "the catalog's declaration of kind '\(kind)' is damaged: \(problem)", path: path)
    }
}
