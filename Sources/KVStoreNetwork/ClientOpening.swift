/// What a client sends as soon as it is connected (``ReplicationProtocol``), before the server
/// says anything: the magic bytes, its protocol version and an `a` frame holding its token
/// (empty: none).
struct ClientOpening: Equatable {
    var token: [UInt8]

    /// The largest `a` frame a server reads: a token of ``ReplicationToken/maxLength`` bytes.
    static let frameLimit = ReplicationProtocol.framePrefix + ReplicationToken.maxLength + 4

    /// A problem with what a client opened with: one line, for the server's refusal and log.
    struct Problem: Error, Equatable {
        let message: String
    }

    var bytes: [UInt8] { ReplicationProtocol.greeting + ReplicationProtocol.frame(.authentication, token) }

    /// Reads the opening at the start of `bytes`.
    /// - Returns: it and how many bytes it took, or nil when `bytes` holds only part of it.
    /// - Throws: ``Problem`` as soon as the bytes that show one arrived: a TLS handshake, bytes
    ///   that are not the protocol's, another version, a bad frame or one that is not `a`.
    static func decode(_ bytes: ArraySlice<UInt8>) throws(Problem) -> (opening: ClientOpening, length: Int)? {
        let magic = ReplicationProtocol.magic
        if bytes.first == 0x16 {   // a TLS handshake record
            throw Problem(message: "the replica speaks TLS, this server does not (serve with a certificate and key, or connect without TLS)")
        }
        guard bytes.prefix(magic.count).elementsEqual(magic.prefix(bytes.count)) else {
            throw Problem(message: "not a kvstore replica (its first bytes are not the replication protocol's)")
        }
        let greeting = ReplicationProtocol.greeting.count
        guard bytes.count >= greeting else { return nil }
        let version = Array(bytes[bytes.startIndex + magic.count..<bytes.startIndex + greeting]).littleEndian(at: 0, as: UInt16.self)
        guard version == ReplicationProtocol.version else {
            throw Problem(message: "the replica speaks replication protocol \(version), this server \(ReplicationProtocol.version); use the same kvstore on both sides")
        }
        let decoded: (frame: ProtocolFrame, length: Int)?
        do {
            decoded = try ProtocolFrame.decode(bytes.dropFirst(greeting), limit: frameLimit)
        } catch {
            throw Problem(message: "the replica sent a bad frame: \(error.message)")
        }
        guard let (frame, length) = decoded else { return nil }
        guard frame.type == .authentication else {
            throw Problem(message: "the replica sent a '\(Character(Unicode.Scalar(frame.type.rawValue)))' frame where its opening ('a') was expected")
        }
        return (ClientOpening(token: frame.payload), greeting + length)
    }
}
