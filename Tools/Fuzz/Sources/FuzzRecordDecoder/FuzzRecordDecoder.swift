import Foundation
import FuzzSupport
@_spi(Fuzzing) import KVStore

// The record decoder (`RecordCodec.decode`) and the record's partial readers (`keys(in:)`,
// `value(forKey:in:)`) on any bytes. Checks: no trap; failures are the documented error with a
// one-line message; a decoded record round-trips (decode → encode → decode equal, encoding stable);
// and on a record that decodes, the partial readers agree with the whole decode: `keys(in:)` is
// its keys in UTF-8 byte order, `value(forKey:in:)` finds each key's value and nil for a key
// that is absent; either Unicode normalization form of a key finds its value, and encoded keys
// are in NFC. Decoding through the keys of records decoded before (`RecordShapes`, the samples' and
// the input's own) gives the whole decode's values or its error.

@_cdecl("FuzzRecordDecoder_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, seeds: { Samples.records.map(FuzzingEntryPoints.encodeRecord) }, callback: fuzzOne)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = inputBytes(data, count)
    requireShapesAgree(bytes)
    guard let record = requireRoundTrip(bytes, "RecordCodec.decode",
                                        decode: FuzzingEntryPoints.decodeRecord, encode: FuzzingEntryPoints.encodeRecord) else {
        // The partial readers may accept what the whole decode refuses (they check only what they
        // read), but must not trap, and fail with one line.
        do { _ = try FuzzingEntryPoints.recordKeys(bytes) } catch { requireOneLine(error.description, from: "RecordCodec.keys", quoting: bytes) }
        do { _ = try FuzzingEntryPoints.recordValue(forKey: "name", in: bytes) } catch {
            requireOneLine(error.description, from: "RecordCodec.value(forKey:)", quoting: bytes)
        }
        return 0
    }
    do {
        let keys = try FuzzingEntryPoints.recordKeys(bytes)
        let sorted = record.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        require(keys.count == sorted.count && zip(keys, sorted).allSatisfy { Array($0.utf8) == Array($1.utf8) },
                "keys(in:) gives \(keys), the decoded record has \(sorted)")
        for (key, value) in record {
            let found = try FuzzingEntryPoints.recordValue(forKey: key, in: bytes)
            require(found == value, "value(forKey: \(key)) gives \(String(describing: found)), the decode \(value)")
            // Unicode twins: either normalization form of a key finds the same value.
            for twin in [key.precomposedStringWithCanonicalMapping, key.decomposedStringWithCanonicalMapping] {
                let byTwin = try FuzzingEntryPoints.recordValue(forKey: twin, in: bytes)
                require(byTwin == value, "value(forKey:) of another spelling of \(key.debugDescription) gives \(String(describing: byTwin))")
            }
        }
        // Encoded keys are in NFC at every level, so encoding the decode never holds twins.
        let encoded = FuzzingEntryPoints.encodeRecord(record)
        let encodedKeys = try FuzzingEntryPoints.recordKeys(encoded)
        require(encodedKeys.allSatisfy { Array($0.utf8) == Array($0.precomposedStringWithCanonicalMapping.utf8) },
                "an encoded record has a key not in NFC: \(encodedKeys)")
        let absent = "\u{10FFFF}absent"
        if record[absent] == nil {
            require(try FuzzingEntryPoints.recordValue(forKey: absent, in: bytes) == nil, "an absent key has a value")
        }
    } catch {
        require(false, "a record that decodes fails a partial read: \(error)")
    }
    return 0
}

/// Shapes learnt from the samples and from the input itself change nothing: the same values, or
/// the same error, as the whole decode.
private let sampleRecords = Samples.records.map(FuzzingEntryPoints.encodeRecord)

private func requireShapesAgree(_ bytes: [UInt8]) {
    let whole = Result { () throws(FuzzingEntryPoints.DecodingFailure) in try FuzzingEntryPoints.decodeRecord(bytes) }
    let shaped = Result { () throws(FuzzingEntryPoints.DecodingFailure) in
        try FuzzingEntryPoints.decodeRecordThroughShapes(bytes, after: sampleRecords + [bytes])
    }
    switch (whole, shaped) {
    case (.success(let a), .success(let b)): require(a == b, "through shapes \(b), whole \(a)")
    case (.failure(let a), .failure(let b)): require(a == b, "through shapes: \(b); whole: \(a)")
    default: require(false, "through shapes \(shaped), whole \(whole)")
    }
}
