import FuzzSupport
@_spi(Fuzzing) import KVStore

// The record decoder (`RecordCodec.decode`) and the record's partial readers (`keys(in:)`,
// `value(forKey:in:)`) on any bytes. Checks: no trap; failures are the documented error with a
// one-line message; a decoded record round-trips (decode → encode → decode equal, encoding stable);
// and on a record that decodes, the partial readers agree with the whole decode: `keys(in:)` is
// its keys in UTF-8 byte order, `value(forKey:in:)` finds each key's value and nil for a key
// that is absent.

@_cdecl("FuzzRecordDecoder_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, seeds: { Samples.records.map(FuzzingEntryPoints.encodeRecord) }, callback: fuzzOne)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = inputBytes(data, count)
    let record: [String: Value]
    do {
        record = try FuzzingEntryPoints.decodeRecord(bytes)
    } catch {
        requireOneLine(error.description, from: "RecordCodec.decode", quoting: bytes)
        // The partial readers may accept what the whole decode refuses (they check only what they
        // read), but must not trap, and fail with one line.
        do { _ = try FuzzingEntryPoints.recordKeys(bytes) } catch { requireOneLine(error.description, from: "RecordCodec.keys", quoting: bytes) }
        do { _ = try FuzzingEntryPoints.recordValue(forKey: "name", in: bytes) } catch {
            requireOneLine(error.description, from: "RecordCodec.value(forKey:)", quoting: bytes)
        }
        return 0
    }
    let encoded = FuzzingEntryPoints.encodeRecord(record)
    do {
        let again = try FuzzingEntryPoints.decodeRecord(encoded)
        require(again == record, "decode(encode(r)) differs from r")
        require(FuzzingEntryPoints.encodeRecord(again) == encoded, "encoding a record is not stable")

        let keys = try FuzzingEntryPoints.recordKeys(bytes)
        let sorted = record.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        require(keys.count == sorted.count && zip(keys, sorted).allSatisfy { Array($0.utf8) == Array($1.utf8) },
                "keys(in:) gives \(keys), the decoded record has \(sorted)")
        for (key, value) in record {
            let found = try FuzzingEntryPoints.recordValue(forKey: key, in: bytes)
            require(found == value, "value(forKey: \(key)) gives \(String(describing: found)), the decode \(value)")
        }
        let absent = "\u{10FFFF}absent"
        if record[absent] == nil {
            require(try FuzzingEntryPoints.recordValue(forKey: absent, in: bytes) == nil, "an absent key has a value")
        }
    } catch {
        require(false, "a record that decodes fails a partial read or a re-decode: \(error)")
    }
    return 0
}
