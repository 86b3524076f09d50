/// The decoders the fuzz targets in `Tools/Fuzz` call: that nested package depends on this one by
/// path and cannot see its `package` declarations. Not API: visible only to
/// `@_spi(Fuzzing) import KVStore`, and each entry point only forwards to one codec, with no
/// behaviour of its own.
///
/// ```swift
/// @_spi(Fuzzing) import KVStore
/// let value = try FuzzingEntryPoints.decodeValue([1, 3, 1])   // .int(-1)
/// ```
/// The decoders throw ``ValueDecodingError`` (a `package` type); the entry points hand on its
/// one-line description as a ``DecodingFailure``. Typed throws make sure nothing else is thrown.
@_spi(Fuzzing) public enum FuzzingEntryPoints {
    /// A ``ValueDecodingError``'s description: the problem and its offset.
    public struct DecodingFailure: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// ``ValueCodec/decode(_:)``.
    public static func decodeValue(_ bytes: [UInt8]) throws(DecodingFailure) -> Value {
        do { return try ValueCodec.decode(bytes) } catch { throw DecodingFailure(description: error.description) }
    }

    /// ``ValueCodec/encode(_:)``.
    public static func encodeValue(_ value: Value) -> [UInt8] { ValueCodec.encode(value) }

    /// ``RecordCodec/decode(_:)``.
    public static func decodeRecord(_ bytes: [UInt8]) throws(DecodingFailure) -> [String: Value] {
        do { return try RecordCodec.decode(bytes) } catch { throw DecodingFailure(description: error.description) }
    }

    /// ``RecordShapes/decode(_:)`` of `bytes`, after one ``RecordShapes`` decoded `earlier` in
    /// order (learning their keys; their failures are passed over).
    public static func decodeRecordThroughShapes(_ bytes: [UInt8], after earlier: [[UInt8]]) throws(DecodingFailure) -> [String: Value] {
        var shapes = RecordShapes()
        for record in earlier { _ = try? record.withUnsafeBytes { try shapes.decode($0) } }
        do {
            return try bytes.withUnsafeBytes { buffer in
                Result { () throws(ValueDecodingError) -> [String: Value] in try shapes.decode(buffer) }
            }.get()
        } catch { throw DecodingFailure(description: error.description) }
    }

    /// ``RecordCodec/encode(_:)``.
    public static func encodeRecord(_ values: [String: Value]) -> [UInt8] { RecordCodec.encode(values) }

    /// ``RecordCodec/keys(in:)``.
    public static func recordKeys(_ bytes: [UInt8]) throws(DecodingFailure) -> [String] {
        do {
            return try bytes.withUnsafeBytes { buffer in
                Result { () throws(ValueDecodingError) -> [String] in try RecordCodec.keys(in: buffer) }
            }.get()
        } catch { throw DecodingFailure(description: error.description) }
    }

    /// ``RecordCodec/value(forKey:in:)``.
    public static func recordValue(forKey key: String, in bytes: [UInt8]) throws(DecodingFailure) -> Value? {
        do {
            return try bytes.withUnsafeBytes { buffer in
                Result { () throws(ValueDecodingError) -> Value? in try RecordCodec.value(forKey: key, in: buffer) }
            }.get()
        } catch { throw DecodingFailure(description: error.description) }
    }

    /// ``JournalCodec/decodeDirectly(_:)``: the entry when `bytes` has exactly the written shape.
    public static func decodeJournalEntryDirectly(_ bytes: [UInt8]) throws(DecodingFailure) -> JournalEntry? {
        do {
            return try bytes.withUnsafeBytes { buffer in
                Result { () throws(ValueDecodingError) -> JournalEntry? in try JournalCodec.decodeDirectly(buffer) }
            }.get()
        } catch { throw DecodingFailure(description: error.description) }
    }

    /// ``JournalCodec/decode(_:sequence:)``: how the store reads its `journal` database.
    public static func decodeJournalEntry(_ bytes: [UInt8], sequence: UInt64) throws(StoreError) -> JournalEntry {
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(StoreError) -> JournalEntry in try JournalCodec.decode(buffer, sequence: sequence) }
        }.get()
    }

    /// ``JournalCodec/encode(_:encodedNew:)``.
    public static func encodeJournalEntry(_ entry: JournalEntry) -> [UInt8] { JournalCodec.encode(entry) }

    /// ``KindDeclaration/init(encoded:)``, how the store reads a `catalog/<kind>` value: the
    /// declaration in its journal form (``KindDeclaration/journalValue``; nil for an open kind's).
    public static func decodeKindDeclaration(_ bytes: [UInt8]) throws(DecodingFailure) -> Value? {
        do {
            return try bytes.withUnsafeBytes { buffer in
                Result { () throws(DeclarationError) -> Value? in try KindDeclaration(encoded: buffer).journalValue }
            }.get()
        } catch { throw DecodingFailure(description: error.description) }
    }

    /// ``KindDeclaration/init(journalValue:)`` then ``KindDeclaration/encoded``: a journal
    /// entry's declaration as the catalog stores it.
    public static func encodeKindDeclaration(_ journalValue: Value?) throws(DecodingFailure) -> [UInt8] {
        do { return try KindDeclaration(journalValue: journalValue).encoded } catch { throw DecodingFailure(description: error.description) }
    }
}
