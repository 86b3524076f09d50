import FuzzSupport
@_spi(Fuzzing) import KVStore

// The value decoder (`ValueCodec.decode`) on any bytes. Checks: it never traps; a failure is its
// documented error (typed throws) with a one-line message; a decoded value re-encodes to bytes that
// decode to an equal value (bit for bit: `Value` compares doubles by their bits), and encoding that
// again gives the same bytes.

@_cdecl("FuzzValueDecoder_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, seeds: { Samples.values.map(FuzzingEntryPoints.encodeValue) }, callback: fuzzOne)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = inputBytes(data, count)
    let value: Value
    do {
        value = try FuzzingEntryPoints.decodeValue(bytes)
    } catch {
        requireOneLine(error.description, from: "ValueCodec.decode", quoting: bytes)
        return 0
    }
    let encoded = FuzzingEntryPoints.encodeValue(value)
    do {
        let again = try FuzzingEntryPoints.decodeValue(encoded)
        require(again == value, "decode(encode(v)) differs from v: \(value) became \(again)")
        require(FuzzingEntryPoints.encodeValue(again) == encoded, "encoding \(value) is not stable")
    } catch {
        require(false, "the encoding of a decoded value does not decode: \(error)")
    }
    return 0
}
