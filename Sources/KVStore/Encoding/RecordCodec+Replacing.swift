/// Changing one key of an encoded record without decoding or re-encoding the others.
extension RecordCodec {
    /// The record with `key` set to `value` (nil removes it), and the key's previous value. The key
    /// is stored in NFC, replacing any spelling of it the record held.
    ///
    /// Only the changed entry is encoded; the other entries are copied as bytes and the key
    /// directory is rewritten with shifted offsets. The result is byte for byte what
    /// ``encode(_:)`` would give for the changed dictionary.
    ///
    /// - Throws: ``ValueDecodingError`` when the directory is corrupt.
    package static func replacing(
        _ key: String, with value: Value?, in bytes: UnsafeRawBufferPointer
    ) throws(ValueDecodingError) -> (record: [UInt8], old: Value?) {
        let key = UTF8Text.nfc(key)
        var reader = ByteReader(bytes)
        try ValueCodec.readVersion(from: &reader)
        let directory = try KeyDirectory(reading: &reader, isRecord: true)
        let (index, old, spelledAlike) = try lookUp(key, in: directory)
        guard spelledAlike else {
            // An older record spelling the key otherwise: rewrite it whole, every key in NFC.
            var values = try decode(bytes)
            values.removeValue(forKey: key)
            if let value { values[key] = value }
            return (encode(values), old)
        }
        let found = old != nil
        // The entries kept, as byte ranges, and where the new entry goes among them.
        var starts: [Int] = []
        starts.reserveCapacity(directory.count + 2)
        for i in 0...directory.count { starts.append(try directory.offset(i)) }
        var newEntry: [UInt8] = []
        if let value {
            ValueCodec.appendVarint(UInt64(key.utf8.count), to: &newEntry)
            newEntry.append(contentsOf: key.utf8)
            ValueCodec.encode(value, into: &newEntry)
        }
        let keptBefore = index                                   // entries [0, index)
        let keptAfterStart = found ? index + 1 : index           // entries [keptAfterStart, count)
        let newCount = keptBefore + (value == nil ? 0 : 1) + (directory.count - keptAfterStart)

        var writer = KeyedWriter(count: newCount, into: [ValueCodec.version])
        func copyEntries(_ range: Range<Int>) {
            for i in range {
                writer.beginEntry()
                writer.bytes.append(contentsOf: bytes[(directory.entriesStart + starts[i])..<(directory.entriesStart + starts[i + 1])])
            }
        }
        copyEntries(0..<keptBefore)
        if value != nil {
            writer.beginEntry()
            writer.bytes.append(contentsOf: newEntry)
        }
        copyEntries(keptAfterStart..<directory.count)
        return (writer.finish(), old)
    }
}

extension KeyDirectory {
    /// Offset `index` (0...count) of the table, checked to increase and stay within the entries.
    func offset(_ index: Int) throws(ValueDecodingError) -> Int {
        let position = tableStart + index * 4
        let value = Int(UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: position, as: UInt32.self)))
        if index > 0 {
            let previous = Int(UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: position - 4, as: UInt32.self)))
            guard value > previous else {
                throw ValueDecodingError(offset: position, problem: "dictionary entry offsets out of order")
            }
        }
        guard entriesStart + value <= entriesEnd else {
            throw ValueDecodingError(offset: position, problem: "dictionary entry offset out of range")
        }
        return value
    }
}
