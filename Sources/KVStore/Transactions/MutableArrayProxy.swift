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

    /// The array's current elements.
    public func values() throws -> [Value] {
        switch try transaction.value(forKey: key, of: ref) {
        case nil, .null?: return []
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
            return (old: nil, new: values)
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
            return (old: removed, new: nil)
        }
    }

    /// Replaces the element at `index`.
    public func replace(at index: Int, with value: Value) throws {
        try replace(at: [index], with: [value])
    }

    /// Replaces the elements at `indexes` (ascending, distinct) with `values`, one for one.
    public func replace(at indexes: [Int], with values: [Value]) throws {
        try mutate(.replacement, indexes: indexes, count: values.count) { array in
            try checkIndexes(indexes, in: array)
            let replaced = indexes.map { array[$0] }
            for (index, value) in zip(indexes, values) { array[index] = value }
            return (old: replaced, new: values)
        }
    }

    private func checkIndexes(_ indexes: [Int], in array: [Value]) throws {
        for index in indexes where index < 0 || index >= array.count {
            throw KeyValueCodingError.indexOutOfRange(index, count: array.count, key: key, ref: ref)
        }
    }

    /// Applies one index-level change and journals it with its indexes and the elements involved.
    private func mutate(
        _ change: ChangeKind, indexes: [Int], count: Int,
        _ body: (inout [Value]) throws -> (old: [Value]?, new: [Value]?)
    ) throws {
        guard indexes.count == count else {
            throw KeyValueCodingError.invalidKeyPath(key, problem: "\(indexes.count) indexes for \(count) values")
        }
        guard zip(indexes, indexes.dropFirst()).allSatisfy({ $0 < $1 }) else {
            throw KeyValueCodingError.invalidKeyPath(key, problem: "indexes must be ascending and distinct: \(indexes)")
        }
        if indexes.isEmpty { return }
        if let kind = transaction.store.kind(named: ref.kind), kind.isClosed {
            guard kind.declares(key) else { throw KeyValueCodingError.undefinedKey(key, kind: kind.name, ref: ref, writing: true) }
            if let declared = kind.declaredType(of: key), declared != .array {
                throw KeyValueCodingError.typeMismatch(key: key, declared: declared, given: .array, ref: ref)
            }
        }
        var array = try values()
        let (old, new) = try body(&array)
        let trackKey = ChangeTracker.Key(ref: ref, keyPath: key)
        transaction.tracker.willChange(trackKey, oldValue: old.map(Value.array), stored: true, change: change, indexes: indexes)
        try transaction.replaceStoredValue(.array(array), forKey: key, of: ref)
        if let closed = try transaction.tracker.didChange(trackKey) {
            if closed.change == change {
                try transaction.journal(change, ref: ref, keyPath: key, old: old.map(Value.array),
                                        new: new.map(Value.array), indexes: indexes)
            } else {
                try transaction.journalIfChanged(closed, key: trackKey, new: .array(array))
            }
        }
    }
}

extension WriteTransaction {
    /// A proxy that inserts, removes and replaces elements of the array at `key` by index, each
    /// change journaled with its indexes. See ``MutableArrayProxy``.
    public func mutableArray(forKey key: String, of ref: RecordRef) -> MutableArrayProxy {
        MutableArrayProxy(transaction: self, ref: ref, key: key)
    }
}
