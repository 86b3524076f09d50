/// The entries one record gives one index: its tuples (``IndexKeyEncoding``), uncut.
///
/// Each key path is read within the record as the predicate language reads it
/// (``KeyPathEvaluator``, through dictionaries and across arrays), from the stored values only (a
/// kind's undefined-key hook, a closure of one process, is not asked):
/// - a missing value, `null`, or a path that cannot be read (a key into a number) is one
///   ``IndexKeyEncoding/Class/missing`` entry, so `== nil` finds the record;
/// - an array gives one entry per distinct element, nested arrays flattened, as the predicate
///   language's implicit `ANY` compares them (multi-entry); an empty array one
///   ``IndexKeyEncoding/Class/emptyArray`` entry: every record has at least one entry in each index;
/// - a path that runs into a reference with keys left cannot be read without the referenced
///   record, which changes on its own: the record gets one entry in the *unknown* bucket
///   (``IndexKeyEncoding/Class/unknown``), which the planner always re-checks.
///
/// A compound index takes the cross product of its key paths' entries; beyond
/// ``maximumCrossProduct`` tuples the record goes to the unknown bucket instead.
struct IndexEntries: Equatable {
    /// What a tuple is besides its bytes.
    struct Origin: Equatable {
        /// A component comes from an array's element (a multi-entry index).
        var isElement: Bool
        /// A unique index refuses another record with the tuple: not when a component is missing,
        /// NaN or an empty array (as SQL's unique indexes let NULLs repeat), nor for the unknown
        /// bucket.
        var checksUniqueness: Bool
        /// The key paths (bit `min(position, 63)`) whose component the index orders otherwise than
        /// a sort orders its value, and those holding a string the index keeps in another form
        /// (``IndexKeyEncoding/SortDeparture``): what ``IndexStatistics`` counts.
        var unordered: UInt64 = 0
        var reformed: UInt64 = 0

        /// Whether the tuple is one ``IndexStatistics`` counts: from an element, or with a
        /// component whose index order departs from a sort's.
        var departsFromSortOrder: Bool { isElement || unordered | reformed != 0 }
    }

    /// One tuple of the record.
    struct Tuple: Equatable {
        var bytes: [UInt8]
        var origin: Origin
    }

    /// The record's tuples, in byte order, each once.
    private(set) var tuples: [Tuple]
    /// For a compound index, the distinct components of each key path but the last, in byte
    /// order: the record's leading prefixes are their cross products (``IndexPrefixCounts``).
    /// Empty for an index on one key path, and for the unknown bucket.
    private(set) var leading: [[[UInt8]]] = []

    /// The most tuples a record gives a compound index before it goes to the unknown bucket.
    static let maximumCrossProduct = 256

    /// The one tuple of a record in the unknown bucket.
    static let unknown = [Tuple(bytes: [IndexKeyEncoding.Class.unknown], origin: Origin(isElement: false, checksUniqueness: false))]

    /// The entries of the record whose top-level values `top` gives (nil for a missing key).
    init(_ index: KindIndex, top: (String) throws -> Value?) rethrows {
        guard index.keyPaths.count > 1 else {
            if let value = try Self.scalarValue(index, top: top) {
                tuples = [Self.component(value, isArray: false, folded: index.isFolded)]
                return
            }
            let values = try Self.values(at: index.keyPaths[0], top: top)
            tuples = values.map { Self.components($0.elements, isArray: $0.isArray, folded: index.isFolded) } ?? Self.unknown
            return
        }
        var components: [[Tuple]] = []
        var product = 1
        for path in index.keyPaths {
            guard let values = try Self.values(at: path, top: top) else {
                tuples = Self.unknown
                return
            }
            let encoded = Self.components(values.elements, isArray: values.isArray, folded: index.isFolded)
            product *= encoded.count
            if product > Self.maximumCrossProduct {
                tuples = Self.unknown
                return
            }
            components.append(encoded)
        }
        leading = components.dropLast().map { $0.map(\.bytes) }
        // Each path's components are sorted, distinct and none starts another: the products come
        // out sorted and distinct.
        var tuples = [Tuple(bytes: [], origin: Origin(isElement: false, checksUniqueness: true))]
        var position: UInt64 = 0
        for options in components {
            tuples = tuples.flatMap { tuple in
                options.map { option in
                    Tuple(bytes: tuple.bytes + option.bytes, origin: Origin(
                        isElement: tuple.origin.isElement || option.origin.isElement,
                        checksUniqueness: tuple.origin.checksUniqueness && option.origin.checksUniqueness,
                        unordered: tuple.origin.unordered | option.origin.unordered << position,
                        reformed: tuple.origin.reformed | option.origin.reformed << position))
                }
            }
            position = min(position + 1, 63)
        }
        self.tuples = tuples
    }

    /// The common case: the one value an index on one top-level key reads, when it is not an
    /// array (`null` for a missing key); its one tuple is that value's component. Nil when the
    /// index needs the general reading (several key paths, a longer one, or an array).
    static func scalarValue(_ index: KindIndex, top: (String) throws -> Value?) rethrows -> Value? {
        guard index.keyPaths.count == 1, index.keyPaths[0].components.count == 1, let key = index.keyPaths[0].firstKey else { return nil }
        let value = try top(key) ?? .null
        if case .array = value { return nil }
        return value
    }

    /// The entries of `record`, a record's whole dictionary.
    init(_ index: KindIndex, record: [String: Value]) {
        self.init(index, top: { record[$0] })
    }

    /// The origin of the tuple `bytes`; nil when the record does not give it.
    func origin(of bytes: [UInt8]) -> Origin? {
        var (low, high) = (0, tuples.count)
        while low < high {
            let middle = (low + high) / 2
            if tuples[middle].bytes.lexicographicallyPrecedes(bytes) { low = middle + 1 } else { high = middle }
        }
        return low < tuples.count && tuples[low].bytes == bytes ? tuples[low].origin : nil
    }

    /// The distinct components of one key path's values, in byte order.
    private static func components(_ values: [Value], isArray: Bool, folded: Bool) -> [Tuple] {
        guard values.count > 1 else {
            guard let value = values.first else {
                return [Tuple(bytes: [IndexKeyEncoding.Class.emptyArray], origin: Origin(isElement: true, checksUniqueness: false))]
            }
            return [component(value, isArray: isArray, folded: folded)]
        }
        var sorted = values.map { component($0, isArray: isArray, folded: folded) }.sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }
        var kept = 0
        for index in sorted.indices where kept == 0 || sorted[index].bytes != sorted[kept - 1].bytes {
            sorted.swapAt(kept, index)
            kept += 1
        }
        sorted.removeLast(sorted.count - kept)
        return sorted
    }

    private static func component(_ value: Value, isArray: Bool, folded: Bool) -> Tuple {
        var bytes: [UInt8] = []
        let departure = IndexKeyEncoding.appendReportingOrder(value, folded: folded, to: &bytes)
        return Tuple(bytes: bytes, origin: Origin(
            isElement: isArray, checksUniqueness: IndexKeyEncoding.canEqual(value),
            unordered: departure.contains(.unordered) ? 1 : 0, reformed: departure.contains(.reformed) ? 1 : 0))
    }

    /// The values at `path` (one, or an array's elements flattened); nil for the unknown bucket.
    private static func values(at path: KeyValuePath, top: (String) throws -> Value?) rethrows -> (elements: [Value], isArray: Bool)? {
        guard let first = path.firstKey else { return ([.null], false) }
        var value = try top(first)
        do {
            if path.components.count > 1 {
                value = try KeyPathEvaluator.value(at: path.components.dropFirst(), in: value, source: NoReferences(), fullPath: path)
            }
        } catch is NoReferences.Crossed {
            return nil
        } catch {
            return ([.null], false)  // what the predicate language reads as no value
        }
        guard case .array = value else { return ([value ?? .null], false) }
        return (flattened(value), true)
    }

    /// An array's elements, nested arrays flattened (the predicate language's `ANY`).
    private static func flattened(_ value: Value?) -> [Value] {
        guard case .array(let elements)? = value else { return value.map { [$0] } ?? [] }
        return elements.flatMap { $0.arrayValue == nil ? [$0] : flattened($0) }
    }
}

/// A key-value source that follows no reference: an index reads within its record.
private struct NoReferences: KeyValueSource {
    struct Crossed: Error {}

    func value(forKey key: String, of ref: RecordRef) throws -> Value? {
        throw Crossed()
    }
}
