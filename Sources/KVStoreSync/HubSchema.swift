import PostgresNIO

/// Creates the hub's schema when it is absent and migrates it by version, in one transaction
/// under an advisory lock (stores connecting for the first time at once wait for one another
/// instead of racing), and refuses a schema newer than this build.
///
/// The version is the highest row of `schema_version`; each migration adds its row. A hub whose
/// schema is current is checked with one query and no lock, and no DDL: a user without `CREATE` on
/// a schema an administrator made can sync.
struct HubSchema {
    let client: HubClient

    /// The schema version this build writes and understands.
    static var current: Int { migrations.last?.version ?? 0 }

    /// Each version's statements; `{schema}` stands for the quoted schema name.
    static let migrations: [(version: Int, statements: [String])] = [
        (1, [
            """
            CREATE TABLE {schema}.stores (store_id uuid PRIMARY KEY, name text, first_seen timestamptz,
                last_seen timestamptz, uploaded_through bigint)
            """,
            """
            CREATE TABLE {schema}.changes (id bigserial PRIMARY KEY,
                txid xid8 NOT NULL DEFAULT pg_current_xact_id(), origin uuid NOT NULL, origin_seq bigint NOT NULL,
                stamp_wall bigint NOT NULL, stamp_counter int NOT NULL, kind text NOT NULL, record_id text NOT NULL,
                key text, change text NOT NULL, value jsonb, received_at timestamptz NOT NULL DEFAULT now(),
                UNIQUE (origin, origin_seq))
            """,
            "CREATE INDEX changes_txid_id ON {schema}.changes (txid, id)",
            "CREATE INDEX changes_kind_txid_id ON {schema}.changes (kind, txid, id)",
        ]),
        // The hub's identity: a store keeps its cursors with it and never reuses them with
        // another hub (a restored dump, another server behind the same URL).
        (2, [
            "CREATE TABLE {schema}.hub (id uuid PRIMARY KEY, created_at timestamptz NOT NULL DEFAULT now())",
            "INSERT INTO {schema}.hub (id) VALUES (gen_random_uuid())",
        ]),
        // Values jsonb cannot hold exactly travel in a {"$kv": base64} envelope: a build that
        // does not know it must not read the hub (it would refuse those rows as damaged).
        (3, [
            "COMMENT ON COLUMN {schema}.changes.value IS 'typed JSON, or {\"$kv\": base64} for a value jsonb cannot hold exactly'",
        ]),
    ]

    /// The oldest PostgreSQL with `xid8` and `pg_current_snapshot()` (13).
    static let minimumServerVersion = 130_000

    func prepare() async throws(SyncError) {
        if try await version(checkingServer: true) == Self.current { return }
        try await transaction { () throws(SyncError) in
            let lockName = "kvstore_sync schema \(client.tables.schema)"
            try await execute("SELECT pg_advisory_xact_lock(hashtext(\(lockName)))" as PostgresQuery)
            let exists = try await client.rows("SELECT 1 FROM pg_namespace WHERE nspname = \(client.tables.schema)")
            if exists.isEmpty { try await execute(sql("CREATE SCHEMA {schema}")) }
            try await execute(sql("CREATE TABLE IF NOT EXISTS {schema}.schema_version (version int PRIMARY KEY, "
                                  + "applied_at timestamptz NOT NULL DEFAULT now())"))
            let found = try await version(checkingServer: false)
            for migration in Self.migrations where migration.version > found {
                for statement in migration.statements { try await execute(sql(statement)) }
                try await execute(PostgresQuery(unsafeSQL: sql("INSERT INTO {schema}.schema_version (version) VALUES ($1)"),
                                                binds: bindings(migration.version)))
            }
        }
    }

    /// The schema's version (0 when it has no version table), refusing a newer one than this
    /// build's and, when `checkingServer`, a server older than PostgreSQL 13.
    private func version(checkingServer: Bool) async throws(SyncError) -> Int {
        let table = "\(client.tables.schemaVersion)"
        let rows = try await client.rows("""
            SELECT current_setting('server_version_num')::int, current_setting('server_version'),
                   to_regclass(\(table)) IS NOT NULL
            """)
        let (serverVersion, serverName, hasTable) = try decode { try rows.first?.decode((Int, String, Bool).self) }
        if checkingServer, serverVersion < Self.minimumServerVersion {
            throw SyncError(.refused, hub: client.configuration.name, "the hub runs PostgreSQL \(serverName); sync needs 13 or newer")
        }
        guard hasTable else { return 0 }
        let versions = try await client.rows(PostgresQuery(unsafeSQL: sql("SELECT coalesce(max(version), 0) FROM {schema}.schema_version")))
        let found = try decode { try versions.first?.decode(Int.self) }
        if found > Self.current {
            throw SyncError(.schemaTooNew, hub: client.configuration.name,
                            "the hub's schema \(client.tables.schema) is at version \(found); this build of kvstore understands up to "
                                + "version \(Self.current): upgrade kvstore")
        }
        return found
    }

    private func sql(_ text: String) -> String { text.replacingOccurrences(of: "{schema}", with: client.tables.quotedSchema) }

    private func execute(_ query: PostgresQuery) async throws(SyncError) { _ = try await client.rows(query) }

    private func execute(_ text: String) async throws(SyncError) { try await execute(PostgresQuery(unsafeSQL: text)) }

    private func bindings(_ version: Int) -> PostgresBindings {
        var binds = PostgresBindings()
        binds.append(version)
        return binds
    }

    /// The columns `read` decodes from the one row of an answer.
    private func decode<T>(_ read: () throws -> T?) throws(SyncError) -> T {
        guard let value = try? read() else {
            throw SyncError(.refused, hub: client.configuration.name, "the hub answered the schema query unexpectedly")
        }
        return value
    }

    /// Runs `body` in one transaction on the client's connection: committed when it returns,
    /// rolled back when it throws.
    private func transaction(_ body: () async throws(SyncError) -> Void) async throws(SyncError) {
        try await execute("BEGIN")
        do {
            try await body()
        } catch {
            try? await execute("ROLLBACK")
            throw error
        }
        try await execute("COMMIT")
    }
}
