import KVStore

/// The page's edits, each one write transaction through the store's ordinary write path — the
/// one `kvstore set`, `rm` and `revert` use: the catalog's kind rules and declared types, the
/// indexes, the journal. A refused edit changes nothing and answers with the library's error.
enum Edits {
    /// `{"ref":"K/ID","keyPath":"a.b","value":TYPED}`: sets a value of an existing record (null
    /// removes the key, as with `kvstore set`).
    static func set(_ body: [String: Value], in store: Store) async throws -> [String: Value] {
        let ref = try body.ref("ref"), keyPath = try body.string("keyPath")
        guard let value = body["value"] else { throw StudioError.badRequest("'value' is missing") }
        return try await write(store) { txn in
            let ref = try txn.resolvingUUIDSpelling(ref)
            guard try txn.contains(ref) else { throw StudioError(status: .notFound, message: "\(ref): no such record") }
            try txn.setValue(value, forKeyPath: keyPath, of: ref)
        }
    }

    /// `{"ref":"K/ID"}` deletes the record; `{"ref":"K/ID","keyPath":"a.b"}` removes that key.
    static func remove(_ body: [String: Value], in store: Store) async throws -> [String: Value] {
        let ref = try body.ref("ref")
        let keyPath = body["keyPath"] == nil || body["keyPath"] == .null ? nil : try body.string("keyPath")
        return try await write(store) { txn in
            let ref = try txn.resolvingUUIDSpelling(ref)
            guard let keyPath else { return try txn.delete(ref) }
            try txn.removeValue(forKeyPath: keyPath, of: ref)
        }
    }

    /// `{"ref":"K/ID","values":{…}}`: inserts a new record.
    static func insert(_ body: [String: Value], in store: Store) async throws -> [String: Value] {
        let ref = try body.ref("ref")
        guard case .dictionary(let values)? = body["values"] else { throw StudioError.badRequest("'values' must be an object") }
        return try await write(store) { txn in try txn.insert(values, as: ref) }
    }

    /// `{"commit":N,"force":false}`: writes commit N's inverse as a new commit (``Store/revert(commit:force:)``).
    static func revert(_ body: [String: Value], in store: Store) async throws -> [String: Value] {
        guard case .int(let commit)? = body["commit"], commit > 0 else { throw StudioError.badRequest("'commit' must be a commit number") }
        let force = body["force"] == .bool(true)
        let made = try await Task.detached { try store.revert(commit: UInt64(commit), force: force) }.value
        return ["reverted": .int(commit), "commit": made.map(StudioJSON.number) ?? .null]
    }

    /// Runs `body` in a write transaction; answers with the journal's last sequence
    /// after it (another writer's commit may follow it).
    private static func write(_ store: Store, _ body: @escaping @Sendable (WriteTransaction) throws -> Void) async throws -> [String: Value] {
        try await store.write(body)
        return ["sequence": StudioJSON.number(try await store.read { try $0.lastSequence() })]
    }
}
