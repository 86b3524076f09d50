import Foundation
import Testing
@_spi(Fuzzing) @testable import KVStore

/// The `@_spi(Fuzzing)` entry points the fuzz targets in `Tools/Fuzz` call forward to the codecs
/// unchanged: same results, and the codec's error description as the failure.
@Suite struct FuzzingEntryPointTests {
    @Test func valuesAndRecordsDecodeAsTheCodecsDecodeThem() throws {
        let record: [String: Value] = ["name": "Ada", "born": 1815, "tags": ["math", .null]]
        let value = Value.dictionary(record)
        #expect(FuzzingEntryPoints.encodeValue(value) == ValueCodec.encode(value))
        #expect(try FuzzingEntryPoints.decodeValue(ValueCodec.encode(value)) == value)
        let bytes = FuzzingEntryPoints.encodeRecord(record)
        #expect(bytes == RecordCodec.encode(record))
        #expect(try FuzzingEntryPoints.decodeRecord(bytes) == record)
        #expect(try FuzzingEntryPoints.recordKeys(bytes) == ["born", "name", "tags"])
        #expect(try FuzzingEntryPoints.recordValue(forKey: "born", in: bytes) == 1815)
        #expect(try FuzzingEntryPoints.recordValue(forKey: "absent", in: bytes) == nil)
    }

    @Test func aFailureCarriesTheCodecsMessage() {
        let bad: [UInt8] = [1, 0x3F]
        #expect(throws: FuzzingEntryPoints.DecodingFailure(description: "unknown value tag 0x3f at offset 1")) {
            try FuzzingEntryPoints.decodeValue(bad)
        }
        #expect(throws: FuzzingEntryPoints.DecodingFailure.self) { try FuzzingEntryPoints.decodeRecord(bad) }
        #expect(throws: FuzzingEntryPoints.DecodingFailure.self) { try FuzzingEntryPoints.recordKeys(bad) }
        #expect(throws: FuzzingEntryPoints.DecodingFailure.self) { try FuzzingEntryPoints.decodeJournalEntryDirectly(bad) }
    }

    @Test func journalEntriesDecodeDirectlyAndThroughTheStoresDecoder() throws {
        let entry = JournalEntry(
            sequence: 7, commitID: 3, timestamp: Date(timeIntervalSinceReferenceDate: 1.5),
            ref: try RecordRef("person/ada"), keyPath: "name", change: .setting, oldValue: "Ada", newValue: "Augusta")
        let bytes = FuzzingEntryPoints.encodeJournalEntry(entry)
        #expect(bytes == JournalCodec.encode(entry))
        #expect(try FuzzingEntryPoints.decodeJournalEntryDirectly(bytes) == entry)
        #expect(try FuzzingEntryPoints.decodeJournalEntry(bytes, sequence: 7) == entry)
        let error = #expect(throws: StoreError.self) { try FuzzingEntryPoints.decodeJournalEntry(bytes, sequence: 8) }
        #expect(error?.code == .corrupt)
    }
}
