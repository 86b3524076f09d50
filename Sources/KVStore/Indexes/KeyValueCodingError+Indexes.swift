extension KeyValueCodingError {
    /// A write of `ref` refused by unique index `index` of its kind, because `other` holds the
    /// same indexed values.
    static func uniqueViolation(_ ref: RecordRef, other: String, index: KindIndex) -> Self {
        Self(
            code: .uniqueViolation,
            message: "unique index \(ref.kind).\(index.name) refuses the write: \(ref.kind)/\(other) has the same \(index.name)",
            keyPath: index.name, ref: ref)
    }

    /// Two indexes of `kind` declared on the same key paths, both folded or both not.
    static func duplicateIndex(_ index: KindIndex, kind: String) -> Self {
        Self(
            code: .invalidKeyPath,
            message: "kind \(kind) declares the index \(index.description) twice",
            keyPath: index.name)
    }
}
