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
    }

    /// The record's tuples.
    var tuples: [[UInt8]: Origin]

    /// The most tuples a record gives a compound index before it goes to the unknown bucket.
    static let maximumCrossProduct = 256

    /// The one tuple of a record in the unknown bucket.
    static let unknown: [[UInt8]: Origin] = [[IndexKeyEncoding.Class.unknown]: Origin(isElement: false, checksUniqueness: false)]

    /// The entries of the record whose top-level values `top` gives (nil for a missing key).
    init(_ index: KindIndex, top: (String) throws -> Value?) rethrows {
        var components: [[(bytes: [UInt8], origin: Origin)]] = []
        var product = 1
        for path in index.keyPaths {
            guard let values = try Self.values(at: path, top: top) else {
                self.tuples = Self.unknown
                return
            }
            let encoded = Self.components(values.elements, isArray: values.isArray, folded: index.isFolded)
            product *= encoded.count
            if index.keyPaths.count > 1 && product > Self.maximumCrossProduct {
                self.tuples = Self.unknown
                return
            }
            components.append(encoded)
        }
        var tuples: [[UInt8]: Origin] = [[]: Origin(isElement: false, checksUniqueness: true)]
        for options in components {
            var next: [[UInt8]: Origin] = [:]
            for (tuple, origin) in tuples {
                for option in options {
                    next[tuple + option.bytes] = Origin(
                        isElement: origin.isElement || option.origin.isElement,
                        checksUniqueness: origin.checksUniqueness && option.origin.checksUniqueness)
                }
            }
            tuples = next
        }
        self.tuples = tuples
    }

    /// The entries of `record`, a record's whole dictionary.
    init(_ index: KindIndex, record: [String: Value]) {
        self.init(index, top: { record[$0] })
    }

    /// The distinct components of one key path's values.
    private static func components(_ values: [Value], isArray: Bool, folded: Bool) -> [(bytes: [UInt8], origin: Origin)] {
        guard !values.isEmpty else {
            return [([IndexKeyEncoding.Class.emptyArray], Origin(isElement: true, checksUniqueness: false))]
        }
        var seen = Set<[UInt8]>()
        return values.compactMap { value in
            let bytes = IndexKeyEncoding.component(value, folded: folded)
            guard seen.insert(bytes).inserted else { return nil }
            return (bytes, Origin(isElement: isArray, checksUniqueness: IndexKeyEncoding.canEqual(value)))
        }
    }

    /// The values at `path` (one, or an array's elements flattened); nil for the unknown bucket.
    private static func values(at path: KeyValuePath, top: (String) throws -> Value?) rethrows -> (elements: [Value], isArray: Bool)? {
        guard let first = path.firstKey else { return ([.null], false) }
        let value: Value?
        do {
            value = try KeyPathEvaluator.value(
                at: path.components.dropFirst(), in: try top(first), source: NoReferences(), fullPath: path)
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
