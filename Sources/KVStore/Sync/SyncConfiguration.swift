import Foundation

/// Which kinds a store syncs: meta `sync/config` (``StoreLayout/MetaKey/syncConfig``). A store
/// without it does not sync, and pays nothing for sync: no `sync` state is kept, no lookup made.
///
/// ```swift
/// try store.write { try $0.setSyncConfiguration(SyncConfiguration(kinds: ["person", "note"])) }
/// ```
package struct SyncConfiguration: Sendable, Hashable {
    /// The kinds that sync; nil: every kind.
    package var kinds: Set<String>?

    /// Syncs `kinds`, or every kind when nil.
    package init(kinds: Set<String>?) {
        self.kinds = kinds
    }

    /// Whether records of `kind` sync.
    package func syncs(_ kind: String) -> Bool {
        kinds?.contains(kind) ?? true
    }

    /// The stored form's format byte; a newer one is refused.
    static let format: UInt8 = 1

    /// One format byte, then a ``RecordCodec`` dictionary: `kinds`, an array of the kinds' names
    /// in name order (absent: every kind).
    var encoded: [UInt8] {
        let values: [String: Value] = kinds.map { ["kinds": .array($0.sorted(by: UTF8Text.precedes).map(Value.string))] } ?? [:]
        return [Self.format] + RecordCodec.encode(values)
    }

    /// Reads ``encoded``'s form.
    /// - Throws: ``StoreError/Code/newerFormat`` for a newer format, ``StoreError/Code/corrupt``
    ///   for anything else that is not that form.
    init(encoded bytes: UnsafeRawBufferPointer, path: String) throws(StoreError) {
        guard let format = bytes.first else { throw StoreError(.corrupt, "the sync configuration in meta is empty", path: path) }
        guard format <= Self.format else {
            throw StoreError(.newerFormat, "the sync configuration has format \(format), newer than this kvstore reads (\(Self.format)); use a newer kvstore", path: path)
        }
        let values: [String: Value]
        do { values = try RecordCodec.decode(UnsafeRawBufferPointer(rebasing: bytes.dropFirst())) } catch {
            throw StoreError(.corrupt, "the sync configuration in meta is corrupt: \(error)", path: path)
        }
        guard Set(values.keys).isSubset(of: ["kinds"]) else {
            throw StoreError(.corrupt, "the sync configuration in meta has unknown fields: \(values.keys.sorted().joined(separator: ", "))", path: path)
        }
        guard let kinds = values["kinds"] else {
            self.init(kinds: nil)
            return
        }
        guard case .array(let names) = kinds, case let texts = names.compactMap(\.stringValue), texts.count == names.count,
              texts.allSatisfy({ (try? RecordRef.validate(kind: $0)) != nil }) else {
            throw StoreError(.corrupt, "the sync configuration in meta is corrupt: its kinds are not kind names", path: path)
        }
        self.init(kinds: Set(texts))
    }
}
