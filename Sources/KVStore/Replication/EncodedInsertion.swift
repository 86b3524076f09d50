import Foundation

/// A record insertion read from a source's journal that a replica can apply as its bytes: the
/// record stored as it is, the replica's journal entry made of the source entry's own field bytes
/// with its sequence, commit, origin and time written anew (its stamp kept). Found by ``reading(_:sequence:)``,
/// which vouches for exactly the entries whose bytes the decoding apply would store and journal
/// the same; every other entry is decoded (``JournalCodec/decode(_:sequence:keepingRecordsEncoded:)``).
///
/// ```swift
/// if let (insertion, commit) = EncodedInsertion.reading(bytes, sequence: 42) {
///     bytes[insertion.record]   // the `new` field's value: the dictionary tag, then the record's keyed dictionary
/// }
/// ```
/// Positions are offsets in the buffer read, moved by ``moved(by:)`` when the entry is copied.
struct EncodedInsertion {
    /// The whole source entry.
    var entry: Range<Int>
    /// The `new` field's value: the dictionary tag, then the record's keyed dictionary (a record's
    /// encoding but for its first byte), checked by ``ValueCheck/skipRecord(_:)``.
    var record: Range<Int>
    /// The `ref` field's value, in the form the encoder writes it: the reference tag, the length,
    /// `kind/id`.
    var reference: Range<Int>
    /// The kind's bytes and the id's bytes inside ``reference``.
    var kind: Range<Int>
    var id: Range<Int>
    /// The entry's origin, when it has one: its store id as lowercase text (36 bytes) and its
    /// sequence there.
    var originStore: Range<Int>?
    var originSequence: UInt64 = 0
    /// The entry's stamp time (an entry written before stamps: its timestamp's, see
    /// ``HybridTime/init(legacy:)``), which the replica's entry keeps when it has an origin.
    var stamp = HybridTime(wall: 0, counter: 0)

    /// The same insertion in a copy of the bytes that starts `offset` bytes later.
    func moved(by offset: Int) -> EncodedInsertion {
        func move(_ range: Range<Int>) -> Range<Int> { range.lowerBound + offset ..< range.upperBound + offset }
        var moved = self
        moved.entry = move(entry)
        moved.record = move(record)
        moved.reference = move(reference)
        moved.kind = move(kind)
        moved.id = move(id)
        moved.originStore = originStore.map(move)
        return moved
    }

    /// Whether key paths can name every key of the record (``WriteTransaction/checkKey(_:)``: not
    /// empty, no `.`, no leading `@`), as a record insertion read from outside (a journal stream)
    /// must show; nothing else is checked again (``reading(_:sequence:)`` checked the record).
    func namesKeys(in bytes: UnsafeRawBufferPointer) -> Bool {
        (try? checkNames(in: bytes)) ?? false
    }

    private func checkNames(in bytes: UnsafeRawBufferPointer) throws(ValueDecodingError) -> Bool {
        var reader = ByteReader(bytes, offset: record.lowerBound + 1, end: record.upperBound, depth: 1)
        let directory = try KeyDirectory(reading: &reader, isRecord: false)
        for index in 0 ..< directory.count {
            var entry = try directory.entryReader(index, depth: 1)
            let key = try entry.readBytes(try entry.readLength("dictionary key"), "dictionary key")
            guard let first = key.first, first != UInt8(ascii: "@"), !key.contains(UInt8(ascii: ".")) else { return false }
        }
        return true
    }

    /// The `change` field's value of a record insertion, as the encoder writes it.
    static let insertedChange: [UInt8] = [ValueCodec.Tag.string, 14] + Array("recordInserted".utf8)

    /// The record insertion encoded in `bytes`, the journal entry stored under `sequence`, with its
    /// commit id — when every field is in the form ``JournalCodec/encode(_:encodedNew:)`` writes it
    /// (the fields copied as they are: change, new and ref) or at least decodes (the fields written
    /// anew: commit, sequence, stamp, timestamp), it has no field but those and the origin, and its
    /// sequence is `sequence`. Nil for anything else — another change, a derived entry, keys that
    /// are not ASCII, a reference id that is not ASCII, an origin not written as the encoder writes
    /// it, damage of any kind — which is then decoded (and refused there when it is corrupt).
    static func reading(_ bytes: UnsafeRawBufferPointer, sequence: UInt64) -> (insertion: EncodedInsertion, commitID: UInt64)? {
        (try? read(bytes, sequence: sequence)) ?? nil
    }

    private static func read(_ bytes: UnsafeRawBufferPointer, sequence: UInt64) throws(ValueDecodingError) -> (insertion: EncodedInsertion, commitID: UInt64)? {
        var reader = ByteReader(bytes)
        try ValueCodec.readVersion(from: &reader)
        try reader.enterContainer()
        let directory = try KeyDirectory(reading: &reader, isRecord: false)
        var isInsertion = false, hasSequence = false
        var commit: UInt64?
        var stamp: HybridTime?, timestamp: Date?
        var record: Range<Int>?
        var reference: (whole: Range<Int>, kind: Range<Int>, id: Range<Int>)?
        var origin: (store: Range<Int>, sequence: UInt64)?
        var previous: UnsafeRawBufferPointer?
        for index in 0 ..< directory.count {
            var entry = try directory.entryReader(index, depth: reader.depth)
            let key = try RecordCodec.readKey(from: &entry, after: previous)
            previous = key
            guard let field = JournalCodec.Field(key) else { return nil }
            switch field {
            case .change:
                let value = try entry.readBytes(entry.remaining, "change")
                isInsertion = value.elementsEqual(insertedChange)
                guard isInsertion else { return nil }
            case .commit:
                guard try entry.readByte("value tag") == ValueCodec.Tag.int else { return nil }
                commit = UInt64(bitPattern: try entry.readZigZag("int"))
            case .new:
                let start = entry.offset
                guard try ValueCheck.skipRecord(&entry) else { return nil }
                record = start ..< entry.offset
            case .origin:
                guard let read = try readOrigin(&entry) else { return nil }
                origin = read
            case .ref:
                guard let read = try readReference(&entry) else { return nil }
                reference = read
            case .sequence:
                guard try entry.readByte("value tag") == ValueCodec.Tag.int,
                      UInt64(bitPattern: try entry.readZigZag("int")) == sequence else { return nil }
                hasSequence = true
            case .stamp:
                guard try entry.readByte("value tag") == ValueCodec.Tag.int else { return nil }
                stamp = HybridTime(packed: UInt64(bitPattern: try entry.readZigZag("int")))
            case .timestamp:
                guard try entry.readByte("value tag") == ValueCodec.Tag.date else { return nil }
                timestamp = Date(timeIntervalSinceReferenceDate: Double(bitPattern: try entry.readUInt64("date")))
            case .derived, .indexes, .keyPath, .old:
                return nil
            }
            guard entry.isAtEnd else { return nil }
        }
        reader.leaveContainer()
        try reader.seek(to: directory.entriesEnd)
        guard reader.isAtEnd, isInsertion, hasSequence, let timestamp, let commit, let record, let reference else { return nil }
        let insertion = EncodedInsertion(
            entry: 0 ..< bytes.count, record: record, reference: reference.whole, kind: reference.kind, id: reference.id,
            originStore: origin?.store, originSequence: origin?.sequence ?? 0, stamp: stamp ?? HybridTime(legacy: timestamp))
        return (insertion, commit)
    }

    /// A reference the decoder reads as a valid ``RecordRef`` and the encoder writes back byte for
    /// byte: a shortest length, an ASCII kind of the allowed characters, an id of printable ASCII
    /// (nil for any other id: its checks need the decoder's strings).
    private static func readReference(_ reader: inout ByteReader) throws(ValueDecodingError) -> (whole: Range<Int>, kind: Range<Int>, id: Range<Int>)? {
        let start = reader.offset
        guard try reader.readByte("value tag") == ValueCodec.Tag.reference else { return nil }
        let lengthStart = reader.offset
        let text = try reader.readBytes(try reader.readLength("reference"), "reference")
        let textStart = reader.offset - text.count
        guard textStart - lengthStart == (text.count < 0x80 ? 1 : 2), text.count <= RecordRef.maxKeyLength,
              let slash = text.firstIndex(of: UInt8(ascii: "/")), slash > 0, slash <= RecordRef.maxKindLength, slash + 1 < text.count
        else { return nil }
        for (offset, byte) in text[..<slash].enumerated() {
            let isLetter = (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
            let isDigit = byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
            guard isLetter || byte == UInt8(ascii: "_") || (offset > 0 && (isDigit || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "."))) else { return nil }
        }
        guard !text[(slash + 1)...].contains(where: { $0 < 0x20 || $0 >= 0x7F }) else { return nil }
        return (start ..< reader.offset, textStart ..< textStart + slash, textStart + slash + 1 ..< reader.offset)
    }

    /// An origin in exactly the form the encoder writes: `{"sequence": int, "store": lowercase
    /// UUID text}`, every length in its shortest form.
    private static func readOrigin(_ reader: inout ByteReader) throws(ValueDecodingError) -> (store: Range<Int>, sequence: UInt64)? {
        guard try reader.readByte("value tag") == ValueCodec.Tag.dictionary else { return nil }
        try reader.enterContainer()
        let countStart = reader.offset
        let directory = try KeyDirectory(reading: &reader, isRecord: false)
        guard directory.count == 2, directory.tableStart == countStart + 1 else { return nil }
        var first = try directory.entryReader(0, depth: reader.depth)
        let sequenceStart = first.offset
        let sequenceKey = try RecordCodec.readKey(from: &first, after: nil)
        guard first.offset - sequenceStart == 9, sequenceKey.elementsEqual("sequence".utf8),
              try first.readByte("value tag") == ValueCodec.Tag.int else { return nil }
        let sequence = UInt64(bitPattern: try first.readZigZag("int"))
        var second = try directory.entryReader(1, depth: reader.depth)
        let storeStart = second.offset
        let storeKey = try RecordCodec.readKey(from: &second, after: sequenceKey)
        guard first.isAtEnd, second.offset - storeStart == 6, storeKey.elementsEqual("store".utf8),
              try second.readByte("value tag") == ValueCodec.Tag.string, try second.readByte("string") == 36 else { return nil }
        let text = try second.readBytes(36, "string")
        guard second.isAtEnd, isLowercaseUUIDText(text) else { return nil }
        try reader.seek(to: directory.entriesEnd)
        reader.leaveContainer()
        return (second.offset - 36 ..< second.offset, sequence)
    }

    /// Whether `text` is a UUID as ``Foundation/UUID/lowercasedText`` writes it: 8-4-4-4-12
    /// lowercase hexadecimal digits.
    private static func isLowercaseUUIDText(_ text: UnsafeRawBufferPointer) -> Bool {
        for (offset, byte) in text.enumerated() {
            if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                guard (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f")) else { return false }
            }
        }
        return text.count == 36
    }
}
