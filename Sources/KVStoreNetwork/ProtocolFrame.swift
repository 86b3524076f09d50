import KVStore

/// One protocol frame read from bytes received (``ReplicationProtocol``).
struct ProtocolFrame {
    let type: ReplicationProtocol.FrameType
    let payload: [UInt8]

    /// A frame that cannot be read: one line naming the problem.
    struct Problem: Error, Equatable {
        let message: String
    }

    /// Decodes the frame at the start of `bytes`.
    /// - Parameter limit: the largest frame (prefix, payload and checksum) accepted.
    /// - Returns: the frame and how many bytes it took, or nil when `bytes` holds only part of it.
    /// - Throws: ``Problem`` for a frame larger than `limit`, a checksum that does not match or an
    ///   unknown type — checked as soon as the bytes that show it arrived.
    static func decode(_ bytes: ArraySlice<UInt8>, limit: Int) throws(Problem) -> (frame: ProtocolFrame, length: Int)? {
        guard bytes.count >= ReplicationProtocol.framePrefix else { return nil }
        let prefix = Array(bytes.prefix(ReplicationProtocol.framePrefix))
        let length = Int(prefix.littleEndian(at: 0, as: UInt32.self))
        let total = ReplicationProtocol.framePrefix + length + 4
        guard total <= limit else {
            throw Problem(message: "a frame of \(length) bytes is larger than the \(limit - ReplicationProtocol.framePrefix - 4) allowed here")
        }
        guard let type = ReplicationProtocol.FrameType(rawValue: prefix[4]) else {
            throw Problem(message: "a frame has unknown type \(prefix[4])")
        }
        guard bytes.count >= total else { return nil }
        let start = bytes.startIndex + ReplicationProtocol.framePrefix
        let payload = Array(bytes[start..<start + length])
        let stored = Array(bytes[(start + length)..<(start + length + 4)]).littleEndian(at: 0, as: UInt32.self)
        let computed = payload.withUnsafeBytes { JournalStream.checksum(type: type.rawValue, payload: $0) }
        guard stored == computed else {
            throw Problem(message: "a '\(Character(Unicode.Scalar(type.rawValue)))' frame fails its checksum: the connection is corrupt")
        }
        return (ProtocolFrame(type: type, payload: payload), total)
    }
}
