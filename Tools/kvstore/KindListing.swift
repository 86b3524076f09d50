import KVStore

/// What `kvstore kind` prints of declared kinds: aligned columns (table) or one typed JSON object
/// from each kind's name to its rules (json).
///
/// ```swift
/// KindListing.lines([person])
/// // KIND    RULES   KEYS                 INDEXES  TIMES  SCHEMA
/// // person  closed  age:int name:string  -        -      0
/// ```
enum KindListing {
    /// The kinds as a table; a line saying so when there are none.
    static func lines(_ kinds: [Kind]) -> [String] {
        guard !kinds.isEmpty else { return ["no kind is declared: every kind is open"] }
        var table = Table(header: ["KIND", "RULES", "KEYS", "INDEXES", "TIMES", "SCHEMA"])
        for kind in kinds {
            table.append([
                kind.name, kind.isClosed ? "closed" : "open", keys(of: kind),
                kind.indexes.isEmpty ? "-" : kind.indexes.map(\.description).joined(separator: "; "),
                kind.tracksModificationTimes ? "tracked" : "-", String(kind.schemaVersion),
            ])
        }
        return table.lines()
    }

    /// The line naming the migrations applied to the store, in the order they ran; none when
    /// there are none. The names are the app's: their control characters are written escaped.
    static func migrationLines(_ names: [String]) -> [String] {
        names.isEmpty ? [] : ["applied migrations: " + StandardError.escapingControls(names.joined(separator: ", "))]
    }

    /// A closed kind's keys as `--key` takes them (`age:int notes`), in key order.
    private static func keys(of kind: Kind) -> String {
        guard let declared = kind.declaredKeys else { return "-" }
        if declared.isEmpty { return "(none)" }
        return declared.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            .map { key in declared[key]!.map { "\(key):\($0)" } ?? key }
            .joined(separator: " ")
    }

    /// `{"person": {"closed": true, "keys": {"age": "int", "notes": null}, "indexes": [...],
    /// "tracksModificationTimes": false, "schemaVersion": 0}}`.
    static func json(_ kinds: [Kind]) -> Value {
        .dictionary(Dictionary(uniqueKeysWithValues: kinds.map { kind in
            (kind.name, Value.dictionary([
                "closed": .bool(kind.isClosed),
                "keys": kind.declaredKeys.map { keys in .dictionary(keys.mapValues { $0.map { .string($0.rawValue) } ?? .null }) } ?? .null,
                "indexes": .array(kind.indexes.map { index in
                    .dictionary([
                        "keyPaths": .array(index.keyPaths.map { .string($0.description) }),
                        "unique": .bool(index.isUnique), "folded": .bool(index.isFolded),
                    ])
                }),
                "tracksModificationTimes": .bool(kind.tracksModificationTimes),
                "schemaVersion": .int(Int64(kind.schemaVersion)),
            ]))
        }))
    }
}
