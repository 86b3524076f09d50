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
    _ = requireRoundTrip(inputBytes(data, count), "ValueCodec.decode",
                         decode: FuzzingEntryPoints.decodeValue, encode: FuzzingEntryPoints.encodeValue)
    return 0
}
