import FuzzSupport
import KVStore

// The typed-JSON parser used by `kvstore set/load` (`TypedJSON.value(from:)` and
// `dictionary(from:)`) on any bytes. Checks: no trap; a failure is a `TypedJSONError` (typed
// throws) whose description is one line with a line and column ≥ 1; a parsed value is written back
// (compact and pretty) to text that parses to an equal value, and writing that again gives the same
// bytes (StorageFormat.md in Sources/KVStore/KVStore.docc: dump → load → dump is byte-identical);
// `dictionary(from:)` agrees with `value(from:)` on objects.

@_cdecl("FuzzTypedJSON_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, seeds: {
        Samples.values.map { TypedJSON.utf8(from: $0) } + Samples.records.prefix(3).map { TypedJSON.utf8(from: .dictionary($0), pretty: true) }
            + [Array(#"{"$date":"2016-07-15T00:00:00+02:00"}"#.utf8), Array(#"[1e400, -0, 1.5E-3, "\ud83d\ude00"]"#.utf8)]
    }, callback: fuzzOne)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = inputBytes(data, count)
    let value: Value
    do {
        value = try TypedJSON.value(from: bytes)
    } catch {
        requireOneLine(error.description, from: "TypedJSON.value(from:)", quoting: bytes)
        require(error.line >= 1 && error.column >= 1, "an error at line \(error.line), column \(error.column)")
        do { _ = try TypedJSON.dictionary(from: bytes) } catch { requireOneLine(error.description, from: "TypedJSON.dictionary(from:)", quoting: bytes) }
        return 0
    }
    for pretty in [false, true] {
        let written = TypedJSON.utf8(from: value, pretty: pretty)
        do {
            let again = try TypedJSON.value(from: written)
            require(again == value, "parse(write(v)) differs from v: \(value) became \(again)")
            require(TypedJSON.utf8(from: again, pretty: pretty) == written, "writing \(value) is not stable")
        } catch {
            require(false, "TypedJSON's own output does not parse: \(error) in \(String(decoding: written, as: UTF8.self))")
        }
    }
    do {
        let dictionary = try TypedJSON.dictionary(from: bytes)
        require(value == .dictionary(dictionary), "dictionary(from:) differs from value(from:)")
    } catch {
        requireOneLine(error.description, from: "TypedJSON.dictionary(from:)", quoting: bytes)
        require(value.dictionaryValue == nil, "dictionary(from:) refuses an object value(from:) reads: \(error)")
    }
    return 0
}
