import Foundation
import Testing
@_spi(Fuzzing) @testable import KVStoreNetwork

/// The `@_spi(Fuzzing)` entry points of the protocol-frames fuzz target forward to the protocol's
/// parsers unchanged.
@Suite struct ProtocolFuzzingEntryPointTests {
    @Test func framesReadAsTheProtocolReadsThem() throws {
        let request = Request(after: 41, flags: [.follow, .acceptsSnapshot])
        let bytes = try #require(ProtocolFuzzingEntryPoints.encodeFrame(type: 0x72, payload: Array(request.frame[5..<14])))
        #expect(bytes == request.frame)
        let frame = try #require(try ProtocolFuzzingEntryPoints.decodeFrame(bytes[...], limit: ProtocolFuzzingEntryPoints.maxRequestFrame))
        #expect(frame.type == 0x72 && frame.length == bytes.count)
        #expect(ProtocolFuzzingEntryPoints.rewriteRequest(frame.payload) == bytes)
        #expect(try ProtocolFuzzingEntryPoints.decodeFrame(bytes.dropLast(), limit: 64) == nil)
        #expect(ProtocolFuzzingEntryPoints.encodeFrame(type: 0x01, payload: []) == nil)
        let hello = Hello(storeID: UUID(), firstSequence: 1, lastSequence: 9)
        #expect(ProtocolFuzzingEntryPoints.rewriteHello(Array(hello.frame[5..<37])) == hello.frame)
    }

    @Test func aBadFrameIsTheProtocolsProblem() {
        var bytes = Request(after: 1, flags: []).frame
        bytes[bytes.count - 1] ^= 0xFF
        #expect(throws: ProtocolFuzzingEntryPoints.FrameProblem(description: "a 'r' frame fails its checksum: the connection is corrupt")) {
            try ProtocolFuzzingEntryPoints.decodeFrame(bytes[...], limit: 64)
        }
    }
}
