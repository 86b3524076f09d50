import KVStore

/// Parsing of the arguments scripts pass: `REF`, `KEYPATH`, `VALUE` and `--kind`. Each is checked
/// before the store is opened, so bad input changes nothing.
enum Input {
    /// A record reference, `KIND/ID`.
    static func ref(_ text: String) throws(RecordRefError) -> RecordRef {
        try RecordRef(text)
    }

    /// A kind name, as `--kind` gives it.
    static func kind(_ text: String) throws(RecordRefError) -> String {
        try RecordRef.validate(kind: text)
        return text
    }

    /// A key path to read: keys and collection operators.
    static func keyPath(_ text: String) throws(KeyValueCodingError) -> KeyValuePath {
        try KeyValuePath(text)
    }

    /// A key path that names a stored value (for `set` and `rm`): keys only, no collection operator.
    static func storedKeyPath(_ text: String) throws(KeyValueCodingError) -> KeyValuePath {
        let path = try KeyValuePath(text)
        for case .operator in path.components {
            throw .invalidKeyPath(text, problem: "a collection operator computes a value; it cannot be set or removed")
        }
        return path
    }

    /// A typed JSON value (Sources/KVStore/KVStore.docc/StorageFormat.md). The error gives the line
    /// and column of the problem, and a hint when the text looks like a string without its JSON
    /// quotes.
    static func value(_ text: String) throws(CommandError) -> Value {
        do {
            return try TypedJSON.value(from: text)
        } catch {
            var message = "invalid VALUE (typed JSON expected): \(error)"
            if let first = text.unicodeScalars.first, !"{[\"-0123456789".unicodeScalars.contains(first),
               !["true", "false", "null"].contains(text) {
                let quoted = TypedJSON.string(from: .string(text))
                message += "; a string needs JSON quotes, e.g. '\(quoted.count > 40 ? #""…""# : quoted)'"
            }
            throw CommandError(message)
        }
    }
}
