/// Whole-record decoding that reuses the keys of records decoded before.
///
/// The records of a kind mostly hold the same keys, and decoding one into `[String: Value]` spends
/// most of its work on the keys: a `String` made from each key's bytes, hashed, and inserted. A
/// *shape* remembers one record's key bytes, in directory order, with a dictionary of those keys
/// (values `null`) and where each key sits in it. A record whose keys are byte for byte the
/// shape's is decoded into a copy of that dictionary (a copy keeps every key in its bucket: no
/// key is made or hashed again), each value stored at its key's index.
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
    /// The keys, each with the value `null`.
    private let template: [String: Value]
    /// Where entry `i`'s key is in ``template`` (and in every copy of it).
    private let positions: [Dictionary<String, Value>.Index]

    /// The shape of `bytes`, a record that ``RecordCodec/decode(_:)`` decoded into `decoded`;
    /// nil when its keys cannot be read again (they were: never in practice).
    init?(_ bytes: UnsafeRawBufferPointer, decoded: [String: Value]) {
        var reader = ByteReader(bytes)
        guard (try? ValueCodec.readVersion(from: &reader)) != nil,
              let directory = try? KeyDirectory(reading: &reader, isRecord: true),
              directory.count == decoded.count else { return nil }
        let template = decoded.mapValues { _ in Value.null }  // the same buckets: no key hashed
        var keyBytes: [UInt8] = [], keyEnds: [Int] = [], positions: [Dictionary<String, Value>.Index] = []
        keyEnds.reserveCapacity(directory.count)
        positions.reserveCapacity(directory.count)
        for index in 0 ..< directory.count {
            guard var entry = try? directory.entryReader(index, depth: 1),
                  let length = try? entry.readLength("dictionary key"),
                  let key = try? entry.readBytes(length, "dictionary key"),
                  let text = UTF8Text.string(key.bindMemoryAssumingUInt8()),
                  let position = template.index(forKey: text) else { return nil }
            keyBytes.append(contentsOf: key)
            keyEnds.append(keyBytes.count)
            positions.append(position)
        }
        guard !keyBytes.isEmpty else { return nil }  // (two keys or more: one at least is not empty)
        self.keyBytes = keyBytes
        self.keyEnds = keyEnds
        self.template = template
        self.positions = positions
    }

    /// The record's values when its keys are this shape's and it decodes without a problem; nil
    /// otherwise (the caller then decodes it in full, for its values or its error).
    func decode(_ bytes: UnsafeRawBufferPointer) -> [String: Value]? {
        var reader = ByteReader(bytes)
        guard (try? ValueCodec.readVersion(from: &reader)) != nil,
              let directory = try? KeyDirectory(reading: &reader, isRecord: true),
              directory.count == keyEnds.count else { return nil }
        var result = template
        let matched = keyBytes.withUnsafeBytes { known in
            keyEnds.withUnsafeBufferPointer { ends in
                positions.withUnsafeBufferPointer { positions in
                    Self.decodeValues(directory, known: known, ends: ends, positions: positions, into: &result)
                }
            }
        }
        return matched ? result : nil
    }

    /// Decodes each entry's value into `result` after checking its key is the known one; false
    /// at the first difference or problem.
    @inline(__always)
    private static func decodeValues(
        _ directory: KeyDirectory, known: UnsafeRawBufferPointer, ends: UnsafeBufferPointer<Int>,
        positions: UnsafeBufferPointer<Dictionary<String, Value>.Index>, into result: inout [String: Value]
    ) -> Bool {
        var keyStart = 0
        for index in 0 ..< ends.count {
            let keyEnd = ends[index]
            do {
                var entry = try directory.entryReader(index, depth: 1)
                let length = try entry.readLength("dictionary key")
                guard length == keyEnd - keyStart,
                      equal(try entry.readBytes(length, "dictionary key"), known.baseAddress! + keyStart) else { return false }
                let value = try ValueCodec.decodeTagged(from: &entry)
                guard entry.isAtEnd else { return false }
                result.values[positions[index]] = value
            } catch {
                return false
            }
            keyStart = keyEnd
        }
        return true
    }

    /// Whether `bytes` are the `bytes.count` bytes at `known`: eight at a time, keys being short.
    @inline(__always)
    private static func equal(_ bytes: UnsafeRawBufferPointer, _ known: UnsafeRawPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var offset = 0
        while offset + 8 <= bytes.count {
            guard base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                == known.loadUnaligned(fromByteOffset: offset, as: UInt64.self) else { return false }
            offset += 8
        }
        while offset < bytes.count {
            guard base.load(fromByteOffset: offset, as: UInt8.self) == known.load(fromByteOffset: offset, as: UInt8.self) else { return false }
            offset += 1
        }
        return true
    }
}
