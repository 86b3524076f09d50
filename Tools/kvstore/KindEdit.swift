import KVStore

/// A change of one kind's declaration, as `kvstore kind`'s `--open`, `--closed` and `--key` give
/// it: checked before the store is opened, so bad input changes nothing.
///
/// ```swift
/// let edit = try KindEdit(rule: .closed, keys: ["name:string", "notes"])!
/// try txn.declare(edit.applied(to: declared))   // closed, name: string, notes: any type
/// ```
struct KindEdit {
    let rule: KindRule?
    let keys: [(name: String, type: ValueType?)]

    /// The change the flags ask for; nil when they ask for none.
    init?(rule: KindRule?, keys texts: [String]) throws(CommandError) {
        if rule == nil && texts.isEmpty { return nil }
        if rule == .open && !texts.isEmpty {
            throw CommandError("--open declares no keys (an open kind takes any key): leave out --key, or use --closed")
        }
        var keys: [(name: String, type: ValueType?)] = []
        for text in texts {
            let key = try Self.key(text)
            if keys.contains(where: { $0.name == key.name }) { throw CommandError("--key '\(key.name)' is given twice") }
            keys.append(key)
        }
        self.rule = rule
        self.keys = keys
    }

    /// `kind` changed so.
    func applied(to kind: Kind) throws(CommandError) -> Kind {
        var kind = kind
        switch rule {
        case .open:
            kind.declaredKeys = nil
        case .closed:
            kind.declaredKeys = Dictionary(uniqueKeysWithValues: keys.map { ($0.name, $0.type) })
        case nil:
            guard var declared = kind.declaredKeys else {
                throw CommandError("kind '\(kind.name)' is open: add --closed to declare its keys (it then takes those keys only)")
            }
            for key in keys { declared.updateValue(key.type, forKey: key.name) }
            kind.declaredKeys = declared
        }
        return kind
    }

    /// `NAME[:TYPE]`: a record's key, and a type name (any type when left out, or `any`).
    static func key(_ text: String) throws(CommandError) -> (name: String, type: ValueType?) {
        var name = text
        var type: ValueType?
        if let colon = text.lastIndex(of: ":") {
            name = String(text[..<colon])
            let typeName = String(text[text.index(after: colon)...])
            if typeName != "any" {
                guard let named = ValueType(rawValue: typeName) else {
                    let names = ValueType.allCases.map(\.rawValue).joined(separator: ", ")
                    throw CommandError("--key '\(text)': unknown type '\(typeName)'; the types are \(names), and any")
                }
                type = named
            }
        }
        if name.isEmpty || name.contains(".") || name.hasPrefix("@") {
            throw CommandError("--key '\(text)': '\(name)' is not a record's key: a key is not empty, holds no '.' and does not start with '@' (NAME or NAME:TYPE)")
        }
        return (name, type)
    }
}
