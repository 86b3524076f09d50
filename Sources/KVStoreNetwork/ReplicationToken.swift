/// The shared secret a ``JournalServer`` asks its replicas for, and a ``JournalClient`` sends.
///
/// ```swift
/// // openssl rand -hex 32 > /etc/kvstore/token && chmod 600 /etc/kvstore/token
/// let token = try ReplicationToken(contentsOfFile: "/etc/kvstore/token")
/// configuration.token = token          // the server's
/// options.token = token                // a replica's
/// ```
/// The client sends it in its opening, before the server says anything; the server compares it
/// in constant time. It travels encrypted (TLS), or in clear only to a loopback address: a client
/// refuses to send it otherwise.
public struct ReplicationToken: Sendable {
    /// The longest token (bytes).
    public static let maxLength = 1024
    /// The shortest token (bytes): anything shorter is too easy to guess.
    public static let minLength = 16

    let bytes: [UInt8]

    /// The token in `text` (without surrounding white space).
    /// - Throws: ``CredentialError`` when it is shorter than ``minLength`` or longer than ``maxLength``.
    public init(_ text: String) throws(CredentialError) {
        try self.init(Array(text.utf8), source: "the token", path: "")
    }

    /// The token in the file at `path` (its first line, without surrounding white space), which
    /// only its owner may read or write.
    /// - Throws: ``CredentialError`` when the file cannot be read, is accessible by others (as
    ///   ssh does with keys: `chmod 600` it), or holds a token of the wrong length.
    public init(contentsOfFile path: String) throws(CredentialError) {
        let contents = try CredentialFile.readSecret(path, kind: "token file")
        let line = contents.split(separator: UInt8(ascii: "\n"), maxSplits: 1, omittingEmptySubsequences: false).first ?? []
        try self.init(Array(line), source: "the token in \(path)", path: path)
    }

    private init(_ raw: [UInt8], source: String, path: String) throws(CredentialError) {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
        let trimmed = raw.drop(while: isSpace).reversed().drop(while: isSpace).reversed()
        guard trimmed.count >= Self.minLength else {
            throw CredentialError(path, "\(source) has \(trimmed.count) bytes; a token needs at least \(Self.minLength) (make one with: openssl rand -hex 32)")
        }
        guard trimmed.count <= Self.maxLength else {
            throw CredentialError(path, "\(source) has \(trimmed.count) bytes; a token has at most \(Self.maxLength)")
        }
        bytes = Array(trimmed)
    }

    /// Whether `presented` is this token, in a time that depends on neither (every byte up to
    /// ``maxLength`` is compared, whatever the lengths).
    func matches(_ presented: [UInt8]) -> Bool {
        var difference = UInt(bitPattern: bytes.count ^ presented.count)
        for i in 0..<Self.maxLength {
            let a = i < bytes.count ? bytes[i] : 0
            let b = i < presented.count ? presented[i] : 0
            difference |= UInt(a ^ b)
        }
        return difference == 0
    }
}
