/// Checking an encoded record without decoding it, so that a replica can store the bytes a
/// journal entry carries as they are: a record that decodes, and that the encoder would write
/// byte for byte the same.
extension RecordCodec {
    /// The record at the reader's position — a tagged dictionary, as a record insertion's journal
    /// entry holds it — in a record's own encoding (the version byte, then the keyed dictionary),
    /// when ``ValueCheck/skipRecord(_:)`` vouches for it: it decodes, holds no
    /// `null` at its top level, and is written the way ``encode(_:)`` writes it. The reader is then
    /// past it. Nil, with the reader where it was, otherwise: the value is then decoded as usual
    /// (and refused there when it is corrupt).
    static func passThroughRecord(_ reader: inout ByteReader) -> [UInt8]? {
        var probe = reader
        guard (try? ValueCheck.skipRecord(&probe)) == true else { return nil }
        let start = reader.offset + 1
        var record: [UInt8] = []
        record.reserveCapacity(probe.offset - start + 1)
        record.append(ValueCodec.version)
        record.append(contentsOf: UnsafeRawBufferPointer(rebasing: reader.buffer[start ..< probe.offset]))
        reader = probe
        return record
    }
}

/// Walks an encoded value checking everything ``ValueCodec/decodeTagged(from:)`` checks, without
/// building the value (no strings, arrays or dictionaries are made).
enum ValueCheck {
    /// ``skip(_:)`` for a record: a tagged dictionary with no `null` directly in it. Its own
    /// entries are walked in a loop of their own (no container stack), nested values by ``skip(_:)``.
    static func skipRecord(_ reader: inout ByteReader) throws(ValueDecodingError) -> Bool {
        guard try reader.readByte("value tag") == ValueCodec.Tag.dictionary else { return false }
        try reader.enterContainer()
        let start = reader.offset
        let directory = try KeyDirectory(reading: &reader, isRecord: false)
        guard isShortest(UInt64(directory.count), from: start, to: directory.tableStart) else { return false }
        var keys = Keys(directory: directory, depth: reader.depth, parent: reader)
        while keys.index < directory.count {
            guard var entry = try keys.next() else { return false }
            let value = entry
            let tag = try entry.readByte("value tag")
            if tag == ValueCodec.Tag.array || tag == ValueCodec.Tag.dictionary {
                entry = value
                guard try skip(&entry) else { return false }
            } else {
                guard tag != ValueCodec.Tag.null, try skipScalar(tag, &entry) else { return false }
            }
            guard entry.isAtEnd else { return false }
        }
        try reader.seek(to: directory.entriesEnd)
        reader.leaveContainer()
        return true
    }

    /// Moves the reader past the tagged value at its position.
    /// - Returns: true when the value decodes and is in the form the encoder writes (every varint
    ///   in its shortest form); false when it is not, or when this check cannot vouch for it: a
    ///   dictionary key that is not ASCII (two different byte strings can spell equal keys, which
    ///   only the decoder's strings tell apart). The reader's position is then meaningless.
    /// - Throws: when the bytes are cut short or out of range (the decoder refuses them too).
    static func skip(_ reader: inout ByteReader) throws(ValueDecodingError) -> Bool {
        var stack: [Frame] = []
        descending: while true {
            let tag = try reader.readByte("value tag")
            switch tag {
            case ValueCodec.Tag.array:
                try reader.enterContainer()
                let start = reader.offset
                let count = try reader.readLength("array")
                guard isShortest(UInt64(count), from: start, to: reader.offset) else { return false }
                if count > 0 {
                    stack.append(.array(remaining: count))
                    continue descending
                }
                reader.leaveContainer()
            case ValueCodec.Tag.dictionary:
                try reader.enterContainer()
                let start = reader.offset
                let directory = try KeyDirectory(reading: &reader, isRecord: false)
                guard isShortest(UInt64(directory.count), from: start, to: directory.tableStart) else { return false }
                if directory.count > 0 {
                    var keys = Keys(directory: directory, depth: reader.depth, parent: reader)
                    guard let entry = try keys.next() else { return false }
                    stack.append(.dictionary(keys))
                    reader = entry
                    continue descending
                }
                try reader.seek(to: directory.entriesEnd)
                reader.leaveContainer()
            case ValueCodec.Tag.null:
                break
            default:
                guard try skipScalar(tag, &reader) else { return false }
            }
            // The value is complete: close the containers it completes.
            while let frame = stack.popLast() {
                switch frame {
                case .array(let remaining):
                    if remaining > 1 {
                        stack.append(.array(remaining: remaining - 1))
                        continue descending
                    }
                    reader.leaveContainer()
                case .dictionary(var keys):
                    guard reader.isAtEnd else {
                        throw reader.error("\(reader.remaining) trailing bytes in a dictionary entry")
                    }
                    if keys.index < keys.directory.count {
                        guard let entry = try keys.next() else { return false }
                        stack.append(.dictionary(keys))
                        reader = entry
                        continue descending
                    }
                    reader = keys.parent
                    try reader.seek(to: keys.directory.entriesEnd)
                    reader.leaveContainer()
                }
            }
            return true
        }
    }

    /// A container being walked.
    private enum Frame {
        case array(remaining: Int)
        case dictionary(Keys)
    }

    /// The entries of a dictionary being walked, and the reader to resume after them.
    private struct Keys {
        let directory: KeyDirectory
        let depth: Int
        let parent: ByteReader
        var index = 0
        var previous: UnsafeRawBufferPointer?
        /// The previous key's first 8 bytes packed big-endian (zero-padded), when it has 8 or fewer.
        var previousWord: UInt64?

        init(directory: KeyDirectory, depth: Int, parent: ByteReader) {
            self.directory = directory
            self.depth = depth
            self.parent = parent
        }

        /// A reader of the next entry's value, after its key; nil when the key is not ASCII or
        /// its length not in its shortest form.
        mutating func next() throws(ValueDecodingError) -> ByteReader? {
            var entry = try directory.entryReader(index, depth: depth)
            let start = entry.offset
            let count = try entry.readLength("dictionary key")
            let key = try entry.readBytes(count, "dictionary key")
            guard isShortest(UInt64(count), from: start, to: entry.offset - count) else { return nil }
            // A key of 8 bytes or fewer: checked ASCII and ordered after the previous one through
            // one packed word (zero padding orders a shorter key first, as on a common prefix).
            var word: UInt64?
            if count <= 8, let base = key.baseAddress {
                var packed: UInt64 = 0
                for offset in 0 ..< count {
                    let byte = base.load(fromByteOffset: offset, as: UInt8.self)
                    guard byte < 0x80 else { return nil }
                    packed |= UInt64(byte) << (56 - 8 * offset)
                }
                word = packed
            } else if key.contains(where: { $0 >= 0x80 }) {
                return nil
            }
            if let previous {
                let ordered: Bool
                if let word, let previousWord {
                    ordered = previousWord < word || (previousWord == word && previous.count < count)
                } else {
                    ordered = RecordCodec.compare(previous, key) < 0
                }
                guard ordered else { throw entry.error("dictionary keys out of order or duplicated", at: start) }
            }
            previous = key
            previousWord = word
            index += 1
            return entry
        }
    }

    /// Inlined into the records' loop, where most values are these scalars.
    @inline(__always)
    private static func skipScalar(_ tag: UInt8, _ reader: inout ByteReader) throws(ValueDecodingError) -> Bool {
        let start = reader.offset
        switch tag {
        case ValueCodec.Tag.false, ValueCodec.Tag.true:
            return true
        case ValueCodec.Tag.int:
            _ = try reader.readVarint("int")
            // A varint of several bytes is in its shortest form exactly when its last byte is not 0.
            return reader.offset - start == 1 || reader.buffer[reader.offset - 1] != 0
        case ValueCodec.Tag.double, ValueCodec.Tag.date:
            _ = try reader.readUInt64("double")
            return true
        case ValueCodec.Tag.string, ValueCodec.Tag.bytes:
            let count = try reader.readLength("string")
            let lengthEnd = reader.offset
            let bytes = try reader.readBytes(count, "string").bindMemoryAssumingUInt8()
            guard isShortest(UInt64(count), from: start, to: lengthEnd) else { return false }
            return tag == ValueCodec.Tag.bytes || UTF8Text.isASCII(bytes) || UTF8Text.isValid(bytes)
        case ValueCodec.Tag.reference:
            // Rare in records: decoded as the decoder does, and written back the same — byte for
            // byte (`==` would pass an id the decoder puts in NFC).
            guard let text = try? reader.readString("reference"), let ref = try? RecordRef(text) else { return false }
            return ref.description.utf8.elementsEqual(text.utf8) && isShortest(UInt64(text.utf8.count), from: start, to: reader.offset - text.utf8.count)
        default:
            return false
        }
    }

    /// Whether the varint of `value` read from `start` to `end` took no more bytes than needed.
    private static func isShortest(_ value: UInt64, from start: Int, to end: Int) -> Bool {
        let needed = value == 0 ? 1 : (64 - value.leadingZeroBitCount + 6) / 7
        return end - start == needed
    }
}
