/// The address of a record: its kind and its id, written `kind/id`.
///
/// ```swift
/// let ref = try RecordRef("invoice/2024-001")
/// ref.kind   // "invoice"
/// ref.id     // "2024-001"
/// ```
///
/// Rules, checked on creation:
/// - a kind is 1 to ``maxKindLength`` characters of ASCII letters, digits, `_`, `-` and `.`,
///   starting with a letter or `_`;
/// - an id is non-empty UTF-8 without control characters (it may contain `/`: a `kind/id` string
///   splits at its first `/`); it is kept in Unicode Normalization Form C, so `"caf\u{E9}"` and
///   `"cafe\u{301}"` (equal as Swift strings) name the same record;
/// - `kind`, one separator byte and `id` together fit LMDB's key limit (``maxKeyLength`` bytes).
public struct RecordRef: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The kind: which group of records this one belongs to.
    public let kind: String
    /// The id, unique within the kind.
    public let id: String

    /// LMDB's default maximum key size, in bytes, for a record key (`kind`, 0x00, `id`).
    public static let maxKeyLength = 511
    /// The longest kind name, in bytes.
    public static let maxKindLength = 64

    /// Creates a reference from its kind and id, validating both.
    /// - Throws: ``RecordRefError`` naming what is wrong.
    public init(kind: String, id: String) throws(RecordRefError) {
        let id = UTF8Text.nfc(id)  // one spelling per id: the LMDB key compares bytes
        try Self.validate(kind: kind)
        try Self.validate(id: id, kind: kind)
        self.kind = kind
        self.id = id
    }

    /// Parses `kind/id`.
    /// - Throws: ``RecordRefError`` when there is no `/`, or the kind or id is invalid; its
    ///   ``RecordRefError/ref`` is `text` as given (shortened when very long).
    public init(_ text: String) throws(RecordRefError) {
        // By bytes: '/' is ASCII, so the index is a character boundary too.
        guard let slash = text.utf8.firstIndex(of: UInt8(ascii: "/")) else {
            throw RecordRefError(ref: text, problem: "a record reference is KIND/ID, with a '/'")
        }
        do {
            try self.init(kind: String(text[..<slash]), id: String(text[text.utf8.index(after: slash)...]))
        } catch {
            // The reference as typed (`/ada`), not the part found wrong (`/`).
            throw RecordRefError(ref: text.count > 80 ? String(text.prefix(80)) + "…" : text, problem: error.problem)
        }
    }

    /// `kind/id`.
    public var description: String { "\(kind)/\(id)" }

    /// The store's order: by kind, then by id, each by its UTF-8 bytes.
    public static func < (lhs: RecordRef, rhs: RecordRef) -> Bool {
        if lhs.kind != rhs.kind { return UTF8Text.precedes(lhs.kind, rhs.kind) }
        return UTF8Text.precedes(lhs.id, rhs.id)
    }

    /// Checks a kind name on its own (used for `value(forKeyPath:ofKind:)` and enumeration).
    public static func validate(kind: String) throws(RecordRefError) {
        if kind.isEmpty { throw RecordRefError(ref: "/", problem: "the kind is empty") }
        let bytes = kind.utf8
        if bytes.count > maxKindLength {
            throw RecordRefError(ref: kind, problem: "the kind is longer than \(maxKindLength) bytes")
        }
        for (offset, byte) in bytes.enumerated() {
            if !isKindByte(byte, at: offset) {
                throw RecordRefError(
                    ref: kind,
                    problem: "the kind may hold only ASCII letters, digits, '_', '-' and '.', and start with a letter or '_'"
                )
            }
        }
    }

    /// Whether `byte` may stand at `offset` in a kind: an ASCII letter or `_`, or after the first
    /// byte also a digit, `-` or `.`.
    @inline(__always)
    static func isKindByte(_ byte: UInt8, at offset: Int) -> Bool {
        let isLetter = (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
        let isDigit = byte >= 0x30 && byte <= 0x39
        return isLetter || byte == 0x5F || (offset > 0 && (isDigit || byte == 0x2D || byte == 0x2E))
    }

    private static func validate(id: String, kind: String) throws(RecordRefError) {
        var ref: String { "\(kind)/\(id)" }  // for the messages only: made when one is thrown
        if id.isEmpty { throw RecordRefError(ref: ref, problem: "the id is empty") }
        if id.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 >= 0x80 }),
           id.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw RecordRefError(ref: ref, problem: "the id contains a control character")
        }
        let length = kind.utf8.count + 1 + id.utf8.count
        if length > maxKeyLength {
            throw RecordRefError(
                ref: String(ref.prefix(80)) + "…",
                problem: "kind and id take \(length) bytes, more than LMDB's key limit of \(maxKeyLength)"
            )
        }
    }
}

/// An invalid record reference: empty, too long for LMDB, or with characters that are not allowed.
public struct RecordRefError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The reference as given (shortened when very long).
    public let ref: String
    /// What is wrong with it.
    public let problem: String

    /// `invalid record reference 'REF': problem`.
    public var description: String { "invalid record reference '\(ref)': \(problem)" }
}
