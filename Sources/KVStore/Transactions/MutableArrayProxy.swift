/// Index-level mutation of the array at one key of a record (Foundation's
/// `mutableArrayValueForKey:`), journaled as KVO's insertion, removal and replacement changes with
/// their indexes instead of a whole-array set.
///
/// ```swift
/// let tags = try txn.mutableArray(forKey: "tags", of: ada)
/// try tags.append("poetry")                 // insertion at [n]
/// try tags.insert(["a", "b"], at: [0, 2])   // insertion at [0, 2]
/// try tags.remove(at: [1])                  // removal at [1]
/// try tags.replace(at: [0], with: ["A"])    // replacement at [0]
/// ```
///
/// A key that holds nothing is an empty array; the first insertion creates it. Indexes follow
/// `NSMutableArray`: for insertion they are positions in the resulting array, for removal and
/// replacement positions in the current one; each call journals one entry.
public struct MutableArrayProxy {
    let transaction: WriteTransaction
    /// The record holding the array.
    public let ref: RecordRef
    /// The key of the array.
    public let key: String

    /// The array's current elements (as stored: a key the record lacks is an empty array).
    public func values() throws -> [Value] {
        try stored() ?? []
    }

    private func stored() throws -> [Value]? {
        switch try transaction.storedValue(forKey: key, of: ref) {
        case nil: return nil
        case .array(let elements)?: return elements
        case let other?:
            throw KeyValueCodingError.notACollection(.count, subject: "'\(key)'", type: other.type, keyPath: key)
                .attributed(to: ref)
        }
    }

    /// The number of elements.
    public var count: Int { get throws { try values().count } }

    /// Appends one element.
    public func append(_ value: Value) throws {
        try insert([value], at: [try count])
    }

    /// Inserts one element at `index` (0...count).
    public func insert(_ value: Value, at index: Int) throws {
        try insert([value], at: [index])
    }

    /// Inserts `values` so that they end up at `indexes` (ascending, distinct) in the new array.
    public func insert(_ values: [Value], at indexes: [Int]) throws {
        try mutate(.insertion, indexes: indexes, count: values.count) { array in
            for (value, index) in zip(values, indexes) {
                guard index >= 0, index <= array.count else {
                    throw KeyValueCodingError.indexOutOfRange(index, count: array.count, key: key, ref: ref)
                }
                array.insert(value, at: index)
            }
            return (indexes, old: nil, new: values)
        }
    }

    /// Removes the element at `index`.
    public func remove(at index: Int) throws {
        try remove(at: [index])
    }

    /// Removes the elements at `indexes` (ascending, distinct) of the current array.
    public func remove(at indexes: [Int]) throws {
        try mutate(.removal, indexes: indexes, count: indexes.count) { array in
            try checkIndexes(indexes, in: array)
            let removed = indexes.map { array[$0] }
            for index in indexes.reversed() { array.remove(at: index) }
            return (indexes, old: removed, new: nil)
        }
    }

    /// Replaces the element at `index`.
    public func replace(at index: Int, with value: Value) throws {
        try replace(at: [index], with: [value])
    }

    /// Replaces the elements at `indexes` (ascending, distinct) with `values`, one for one.
    /// Elements replaced by an equal value are left out of the change; when all are equal,
    /// nothing is written or journaled.
    public func replace(at indexes: [Int], with values: [Value]) throws {
        try mutate(.replacement, indexes: indexes, count: values.count) { array in
            try checkIndexes(indexes, in: array)
            let changed = zip(indexes, values).filter { array[$0.0] != $0.1 }
            let replaced = changed.map { array[$0.0] }
            for (index, value) in changed { array[index] = value }
            return (changed.map(\.0), old: replaced, new: changed.map(\.1))
        }
    }

    private func checkIndexes(_ indexes: [Int], in array: [Value]) throws {
        for index in indexes where index < 0 || index >= array.count {
            throw KeyValueCodingError.indexOutOfRange(index, count: array.count, key: key, ref: ref)
        }
    }

    /// Applies one index-level change and journals it with its indexes and the elements involved.
    ///
    /// A key the record lacks is created by setting the new array through
    /// ``WriteTransaction/setValue(_:forKey:of:)`` (so the kind's hooks, declared types and
    /// validation apply, and the journal records a setting). With `validatesOnSet`, a validator
    /// that rewrites the new array turns the change into a setting of the whole key too.
    private func mutate(
        _ change: ChangeKind, indexes: [Int], count: Int,
        _ body: (inout [Value]) throws -> (indexes: [Int], old: [Value]?, new: [Value]?)
    ) throws {
        guard indexes.count == count else {
            throw KeyValueCodingError.invalidKeyPath(key, problem: "\(indexes.count) indexes for \(count) values")
        }
        guard zip(indexes, indexes.dropFirst()).allSatisfy({ $0 < $1 }) else {
            throw KeyValueCodingError.invalidKeyPath(key, problem: "indexes must be ascending and distinct: \(indexes)")
        }
        if indexes.isEmpty { return }
        let kind = try transaction.effectiveKind(named: ref.kind)
        if let kind, kind.isClosed {
            guard kind.declares(key) else { throw KeyValueCodingError.undefinedKey(key, kind: kind.name, ref: ref, writing: true) }
            if let declared = kind.declaredType(of: key), declared != .array {
                throw KeyValueCodingError.typeMismatch(key: key, declared: declared, given: .array, ref: ref)
            }
        }
        let current = try stored()
        var array = current ?? []
        let (changedIndexes, old, new) = try body(&array)
        if changedIndexes.isEmpty { return }
        guard current != nil else { return try transaction.setValue(.array(array), forKey: key, of: ref) }
        if transaction.store.options.validatesOnSet, kind?.validators[key] != nil {
            var validated: Value? = .array(array)
            try transaction.validateValue(&validated, forKey: key, of: ref)
            if validated != .array(array) { return try transaction.storeValue(validated, forKey: key, of: ref) }
        }
        try transaction.checkNesting(of: .array(array), outerLevels: 1, keyPath: key, ref: ref)
        let trackKey = ChangeTracker.Key(ref: ref, keyPath: key)
        // The pair opens (and priors go out) once the patched record is known to fit.
        _ = try transaction.replaceStoredValue(.array(array), forKey: key, of: ref) { _ in
            transaction.willChange(trackKey, oldValue: current.map(Value.array), stored: true, change: change, indexes: changedIndexes)
            return true
        }
        // When this pair is the outermost, journal the elements at their indexes; inside an outer
        // pair for the key, the outer did-change journals the whole change.
        if try transaction.tracker.didChange(trackKey) != nil {
            try transaction.journal(change, ref: ref, keyPath: key, old: old.map(Value.array),
                                    new: new.map(Value.array), indexes: changedIndexes)
        }
    }
}

extension WriteTransaction {
    /// A proxy that inserts, removes and replaces elements of the array at `key` by index, each
    /// change journaled with its indexes. See ``MutableArrayProxy``.
    public func mutableArray(forKey key: String, of ref: RecordRef) -> MutableArrayProxy {
        MutableArrayProxy(transaction: self, ref: ref, key: UTF8Text.nfc(key))
    }
}
