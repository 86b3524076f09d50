/// Whole-record decoding that reuses the keys of records decoded before.
///
/// The records of a kind mostly hold the same keys, and decoding one into `[String: Value]` spends
/// most of its work on the keys: a `String` made from each key's bytes, hashed, and inserted. A
/// *shape* remembers one record's key bytes, in directory order, with a dictionary of those keys
/// giving each one's entry in the directory. A record whose keys are byte for byte the shape's is
/// decoded by mapping that dictionary's values to the record's (`mapValues` keeps every key in its
/// bucket: no key is made or hashed again).
///
/// ```swift
/// var shapes = RecordShapes()
/// let first = try shapes.decode(bytes)    // decoded in full; its keys become a shape
/// let second = try shapes.decode(other)   // same keys: no key made or hashed
/// ```
///
/// Nothing is checked less: the shape's keys passed every check of the full decoder when it was
/// made (UTF-8, strictly increasing, no two canonically equivalent), so equal bytes pass them
/// again; every value is decoded and checked as ``RecordCodec/decode(_:)`` checks it, and so are
/// the directory's offsets and the record's end. On any problem, or keys that match no shape, the
/// record is decoded by ``RecordCodec/decode(_:)`` itself, which gives its own result or error.
struct RecordShapes {
    /// The shapes learnt, most recent last; at most ``capacity``.
    private var shapes: [RecordShape] = []
    /// Records decoded through a shape, and records that matched none.
    private(set) var hits = 0
    private(set) var misses = 0

    static let capacity = 4

    /// The record's values, as ``RecordCodec/decode(_:)`` gives them (the same values, the same
    /// errors).
    mutating func decode(_ bytes: UnsafeRawBufferPointer) throws(ValueDecodingError) -> [String: Value] {
        for index in shapes.indices.reversed() {
            if let values = shapes[index].decode(bytes) {
                hits += 1
                return values
            }
        }
        let values = try RecordCodec.decode(bytes)
        misses += 1
        // Records of many shapes would pay for learning each: stop once shapes do not pay off.
        if values.count > 1, misses <= 8 || hits >= misses, let shape = RecordShape(bytes, decoded: values) {
            if shapes.count == Self.capacity { shapes.removeFirst() }
            shapes.append(shape)
        }
        return values
    }
}

/// One record's keys, ready to be given to records with the same keys (``RecordShapes``).
struct RecordShape {
    /// The keys' UTF-8 bytes one after another, in directory order, and where each one ends.
    private let keyBytes: [UInt8]
    private let keyEnds: [Int]
    /// Each key with its entry's index in the directory.
    private let template: [String: Int]

    /// The shape of `bytes`, a record that ``RecordCodec/decode(_:)`` decoded into `decoded`;
    /// nil when its keys cannot be read again (they were: never in practice).
    init?(_ bytes: UnsafeRawBufferPointer, decoded: [String: Value]) {
        var reader = ByteReader(bytes)
        guard (try? ValueCodec.readVersion(from: &reader)) != nil,
              let directory = try? KeyDirectory(reading: &reader, isRecord: true),
              directory.count == decoded.count else { return nil }
        var template = decoded.mapValues { _ in -1 }  // the same buckets: no key hashed
        var keyBytes: [UInt8] = [], keyEnds: [Int] = []
        keyEnds.reserveCapacity(directory.count)
        for index in 0 ..< directory.count {
            guard var entry = try? directory.entryReader(index, depth: 1),
                  let length = try? entry.readLength("dictionary key"),
                  let key = try? entry.readBytes(length, "dictionary key"),
                  let text = UTF8Text.string(key.bindMemoryAssumingUInt8()),
                  let position = template.index(forKey: text) else { return nil }
            template.values[position] = index
            keyBytes.append(contentsOf: key)
            keyEnds.append(keyBytes.count)
        }
        // (The keys are distinct, so every entry's index is in the template once.)
        guard !keyBytes.isEmpty else { return nil }  // (two keys or more: one at least is not empty)
        self.keyBytes = keyBytes
        self.keyEnds = keyEnds
        self.template = template
    }

    /// The record's values when its keys are this shape's and it decodes without a problem; nil
    /// otherwise (the caller then decodes it in full, for its values or its error).
    ///
    /// The values are decoded in directory order into a buffer on the stack, each after its key
    /// is found to be the known one; then the template's values (each key's entry index) are
    /// mapped to them: `mapValues` builds the result in the template's buckets, so no key is
    /// hashed and no placeholder is stored and replaced.
    func decode(_ bytes: UnsafeRawBufferPointer) -> [String: Value]? {
        var reader = ByteReader(bytes)
        guard (try? ValueCodec.readVersion(from: &reader)) != nil,
              let directory = try? KeyDirectory(reading: &reader, isRecord: true),
              directory.count == keyEnds.count else { return nil }
        return withUnsafeTemporaryAllocation(of: Value?.self, capacity: keyEnds.count) { slots in
            let decoded = keyBytes.withUnsafeBytes { known in
                keyEnds.withUnsafeBufferPointer { ends in Self.decodeValues(directory, known: known, ends: ends, into: slots) }
            }
            guard decoded == slots.count else {
                _ = UnsafeMutableBufferPointer(rebasing: slots[..<decoded]).deinitialize()
                return nil
            }
            // Each slot is taken once (each index is one key's); the slots are then all nil.
            return template.mapValues { index in slots[index].take()! }
        }
    }

    /// Decodes each entry's value into `slots` after checking its key is the known one; the
    /// number of slots initialized, short of `ends.count` at the first difference or problem.
    @inline(__always)
    private static func decodeValues(
        _ directory: KeyDirectory, known: UnsafeRawBufferPointer, ends: UnsafeBufferPointer<Int>,
        into slots: UnsafeMutableBufferPointer<Value?>
    ) -> Int {
        var keyStart = 0
        for index in 0 ..< ends.count {
            let keyEnd = ends[index]
            let key = UnsafeRawBufferPointer(rebasing: known[keyStart ..< keyEnd])
            guard var entry = directory.valueReader(index, ifKeyIs: key),
                  let value = try? ValueCodec.decodeTagged(from: &entry), entry.isAtEnd else { return index }
            (slots.baseAddress! + index).initialize(to: value)
            keyStart = keyEnd
        }
        return ends.count
    }
}
