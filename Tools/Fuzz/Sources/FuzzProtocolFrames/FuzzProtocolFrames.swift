@_spi(Fuzzing) import KVStoreNetwork
import FuzzSupport

// The replication protocol's frame parser (`ProtocolFrame.decode`, what `kvstore serve` reads from
// clients and `replicate tcp://` from servers) and its hello and request payloads, on any bytes:
// the first byte picks the side (even: the server's 64-byte limit on client frames; odd: the
// client's 1 MiB limit), the rest is read as a connection reads it, frame after frame. Checks: no
// trap; a failure is a one-line problem; a frame read is exactly its bytes written again
// (`ReplicationProtocol.frame`); every shorter prefix of it reads as "not yet" or the same
// problem, never as a frame; a hello or request payload that reads is written back to the same
// frame.

@_cdecl("FuzzProtocolFrames_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, seeds: {
        let hello = [UInt8](repeating: 7, count: 16) + [1, 0, 0, 0, 0, 0, 0, 0] + [9, 0, 0, 0, 0, 0, 0, 0]
        let request: [UInt8] = [5, 0, 0, 0, 0, 0, 0, 0, 3]
        let error = [2] + Array("journal truncated".utf8)
        return [
            [1] + frame(0x68, hello) + frame(0x78, error),
            [0] + frame(0x72, request),
            [1] + frame(0x73, [1, 2, 3]) + frame(0x53, [3, 0, 0, 0, 0, 0, 0, 0]) + frame(0x6A, []),
        ]
    }, callback: fuzzOne)
}

func frame(_ type: UInt8, _ payload: [UInt8]) -> [UInt8] {
    guard let bytes = ProtocolFuzzingEntryPoints.encodeFrame(type: type, payload: payload) else { fatalError("unknown frame type \(type)") }
    return bytes
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = inputBytes(data, count)
    guard let side = input.first else { return 0 }
    let limit = side % 2 == 0 ? ProtocolFuzzingEntryPoints.maxRequestFrame : ProtocolFuzzingEntryPoints.maxServerFrame
    var rest = input.dropFirst()
    while !rest.isEmpty {
        let decoded: (type: UInt8, payload: [UInt8], length: Int)?
        do {
            decoded = try ProtocolFuzzingEntryPoints.decodeFrame(rest, limit: limit)
        } catch {
            requireOneLine(error.description, from: "ProtocolFrame.decode")
            return 0
        }
        guard let (type, payload, length) = decoded else { return 0 }
        require(length == payload.count + 9 && length <= limit && length <= rest.count, "a frame of \(payload.count) bytes took \(length)")
        let bytes = Array(rest.prefix(length))
        require(ProtocolFuzzingEntryPoints.encodeFrame(type: type, payload: payload) == bytes, "a frame read is not its bytes written again")
        for cut in stride(from: 0, to: length, by: max(1, length / 16)) {
            do {
                require(try ProtocolFuzzingEntryPoints.decodeFrame(rest.prefix(cut), limit: limit) == nil, "a frame read from \(cut) of its \(length) bytes")
            } catch {
                require(false, "\(cut) bytes of a valid frame read as a problem: \(error)")
            }
        }
        if type == 0x68, let written = ProtocolFuzzingEntryPoints.rewriteHello(payload) {
            require(written == bytes, "a hello read is not written back as it was")
        }
        if type == 0x72, let written = ProtocolFuzzingEntryPoints.rewriteRequest(payload) {
            require(written == bytes, "a request read is not written back as it was")
        }
        rest = rest.dropFirst(length)
    }
    return 0
}
