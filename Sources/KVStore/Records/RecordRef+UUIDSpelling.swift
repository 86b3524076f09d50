import Foundation

/// One spelling of UUID record ids: lowercase, as generated ids (``RecordID``), a model's
/// encoded `UUID` values and store ids are written.
///
/// Stores written before model ids were spelled this way hold a ``StoredModel`` record with a
/// `UUID` id under its uppercase spelling (Foundation's `uuidString`), while the record's `id`
/// value is lowercase. Those records are still found: ``ReadTransaction/resolvingUUIDSpelling(_:)``
/// looks a UUID id up in the other case when no record has the spelling given.
extension RecordRef {
    /// The id of a record named by a model id: a `UUID` as lowercase text, anything else as
    /// `String(describing:)`.
    static func id(describing id: some CustomStringConvertible) -> String {
        if let uuid = id as? UUID { return uuid.lowercasedText }
        return String(describing: id)
    }

    /// Whether this ref's id names the model id `id`: its ``id(describing:)``, or for a `UUID` its
    /// uppercase spelling too (a record of an older store).
    func isID(of id: some CustomStringConvertible) -> Bool {
        let spelled = Self.id(describing: id)
        return self.id == spelled || (id is UUID && otherUUIDSpelling?.id == spelled)
    }

    /// The same record id in the other case, when the id is a UUID's text in one case
    /// (all lowercase or all uppercase hex digits); nil for any other id.
    var otherUUIDSpelling: RecordRef? {
        guard id.utf8.count == 36, UUID(uuidString: id) != nil else { return nil }
        let lower = id.lowercased(), upper = id.uppercased()
        let other = id == lower ? upper : id == upper ? lower : nil
        return other.flatMap { try? RecordRef(kind: kind, id: $0) }
    }
}

extension ReadTransaction {
    /// `ref`, or — when no record has its id and the id is a UUID — the ref of the record stored
    /// under the same UUID in the other case (a model record of a store written when model
    /// UUID ids were uppercase); `ref` itself when neither exists.
    package func resolvingUUIDSpelling(_ ref: RecordRef) throws -> RecordRef {
        guard let other = ref.otherUUIDSpelling, !(try contains(ref)), try contains(other) else { return ref }
        return other
    }

    /// ``resolvingUUIDSpelling(_:)`` for a caller that also needs to know whether the record
    /// exists: one lookup when it does under `ref` (two for a UUID id found in the other case).
    func storedUUIDSpelling(_ ref: RecordRef) throws -> (ref: RecordRef, exists: Bool) {
        if try contains(ref) { return (ref, true) }
        if let other = ref.otherUUIDSpelling, try contains(other) { return (other, true) }
        return (ref, false)
    }
}
