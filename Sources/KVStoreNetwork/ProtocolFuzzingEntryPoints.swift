import Foundation

/// The replication protocol's frame parsers, for the fuzz targets in `Tools/Fuzz` (a nested
/// package that cannot see this module's internal declarations). Not API: visible only to
/// `@_spi(Fuzzing) import KVStoreNetwork`; each entry point forwards to one parser, with no
/// behaviour of its own.
///
/// ```swift
/// @_spi(Fuzzing) import KVStoreNetwork
/// let frame = try ProtocolFuzzingEntryPoints.decodeFrame(bytes, limit: ProtocolFuzzingEntryPoints.maxRequestFrame)
/// ```
@_spi(Fuzzing) public enum ProtocolFuzzingEntryPoints {
    /// A ``ProtocolFrame/Problem``'s message.
    public struct FrameProblem: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// The largest frame a server reads from a client.
    public static let maxRequestFrame = ReplicationProtocol.maxRequestFrame
    /// The largest frame a client reads from a server before the journal stream.
    public static let maxServerFrame = ReplicationProtocol.maxServerFrame

    /// ``ProtocolFrame/decode(_:limit:)``: the frame at the start of `bytes` (its type byte and
    /// payload) and its length, or nil when `bytes` holds only part of it.
    public static func decodeFrame(_ bytes: ArraySlice<UInt8>, limit: Int) throws(FrameProblem) -> (type: UInt8, payload: [UInt8], length: Int)? {
        do {
            guard let (frame, length) = try ProtocolFrame.decode(bytes, limit: limit) else { return nil }
            return (frame.type.rawValue, frame.payload, length)
        } catch {
            throw FrameProblem(description: error.message)
        }
    }

    /// ``ReplicationProtocol/frame(_:_:)``: nil for a type the protocol does not have.
    public static func encodeFrame(type: UInt8, payload: [UInt8]) -> [UInt8]? {
        ReplicationProtocol.FrameType(rawValue: type).map { ReplicationProtocol.frame($0, payload) }
    }

    /// A hello payload read (``Hello/init(payload:)``) and written back as a frame, or nil when it does not read.
    public static func rewriteHello(_ payload: [UInt8]) -> [UInt8]? { Hello(payload: payload)?.frame }

    /// A request payload read (``Request/init(payload:)``) and written back as a frame, or nil when it does not read.
    public static func rewriteRequest(_ payload: [UInt8]) -> [UInt8]? { Request(payload: payload)?.frame }
}
