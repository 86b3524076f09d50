#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Reads a journal stream (``JournalStream``) one whole commit at a time, checking every frame:
/// its checksum, its length, the order of frames, that entries decode and that their sequences
/// are contiguous. Errors name the frame (counted from 1, the header being frame 1) and its byte
/// offset.
///
/// ```swift
/// let reader = try JournalStreamReader(fileDescriptor: 0)    // standard input
/// print(reader.header.storeID)
/// while let commit = try reader.nextCommit() {               // nil after the end frame
///     for entry in commit { … }
/// }
/// ```
/// A commit is handed out only when its commit frame has arrived, so a stream that is cut short
/// never yields part of a commit. Memory stays bounded by the largest commit. A source that could
/// not go on ends the stream with an error frame: the reader then throws
/// ``JournalStreamError/Code/sourceFailed`` (or `sourceInterrupted`) with the source's message,
/// after the whole commits before it.
public final class JournalStreamReader {
    /// The stream's header.
    public private(set) var header: JournalStreamHeader
    /// Entries read so far (in commits handed out or pending).
    public private(set) var count: UInt64 = 0
    /// The sequence of the last entry read, or nil before the first.
    public private(set) var lastSequence: UInt64?
    /// The source's last sequence as far as the stream tells: the largest of the header's last
    /// sequence (of a bounded stream), the latest position frame's (a journal server sends them
    /// with an open-ended stream) and the last entry read; nil while it tells nothing. The
    /// replica's lag is this minus what it applied.
    public var sourceLastSequence: UInt64? {
        [header.lastSequence, position, lastSequence].compactMap { $0 }.max()
    }

    private var source: ByteSource
    private var frameNumber = 0
    /// The entries of the commit being read.
    private var pending = SourceEntries()
    /// Whether record insertions that ``EncodedInsertion`` vouches for are kept as their bytes.
    private var keepingInsertionsEncoded = false
    private var lastCommit: UInt64?
    private var ended = false
    private var position: UInt64?

    /// Reads a stream held in memory.
    public convenience init(bytes: [UInt8]) throws(JournalStreamError) {
        try self.init(source: ByteSource(bytes: bytes))
    }

    /// Reads a stream from a file descriptor (a file, a pipe, standard input), in 64 KiB reads.
    /// The descriptor stays open; the caller closes it.
    public convenience init(fileDescriptor: Int32) throws(JournalStreamError) {
        try self.init(source: ByteSource(descriptor: fileDescriptor))
    }

    /// Reads a stream from a file descriptor whose first bytes, `start`, were already read from it.
    package convenience init(start: [UInt8], fileDescriptor: Int32) throws(JournalStreamError) {
        try self.init(source: ByteSource(bytes: start, then: fileDescriptor))
    }

    private init(source: ByteSource) throws(JournalStreamError) {
        self.source = source
        header = JournalStreamHeader(storeID: UUID(), firstSequence: 0, lastSequence: nil)
        guard let magic = try self.source.take(JournalStream.magic.count), Array(magic) == JournalStream.magic else {
            throw JournalStreamError(.badMagic, "not a kvstore journal stream (its first bytes are not the stream's magic bytes)")
        }
        guard let versionBytes = try self.source.take(2) else {
            throw JournalStreamError(.truncated, "the stream ends inside its format version, at byte \(self.source.offset)")
        }
        let version = UInt16(versionBytes[versionBytes.startIndex]) | UInt16(versionBytes[versionBytes.startIndex + 1]) << 8
        guard version > 0 else {
            throw JournalStreamError(.malformed, "the stream says format version 0, which does not exist (its version bytes are corrupt)")
        }
        guard version <= JournalStream.formatVersion else {
            throw JournalStreamError(.newerFormat, "the stream has format \(version), newer than this kvstore reads (\(JournalStream.formatVersion)); use a newer kvstore")
        }
        let (type, payload, at) = try nextFrame(orEnd: "its header")
        guard type == .header, payload.count == 33 else {
            throw error(.malformed, "is not a header frame", at: at)
        }
        let b = Array(payload)
        let id = UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
        let first = integer(UInt64.self, b, at: 16)
        let openEnded = b[32] & JournalStream.openEndedFlag != 0
        header = JournalStreamHeader(storeID: id, firstSequence: first, lastSequence: openEnded ? nil : integer(UInt64.self, b, at: 24))
        if first == 0 {
            throw error(.malformed, "starts at sequence 0; sequences start at 1", at: at)
        }
        if let last = header.lastSequence, last < first - 1 {
            throw error(.malformed, "has an impossible sequence range \(first)…\(last)", at: at)
        }
    }

    /// Whether bytes already read from the source wait to be parsed: when not, the next
    /// ``nextCommit()`` reads from the source (and on a pipe may wait for its writer).
    var hasBufferedBytes: Bool { source.available > 0 }

    /// The next whole commit's entries, in order, or nil after the end frame.
    public func nextCommit() throws(JournalStreamError) -> [JournalEntry]? {
        while let item = try nextItem() {
            if case .commit(let entries) = item { return entries }
        }
        return nil
    }

    /// Reads the rest of the stream, checking every frame and entry as ``nextCommit()`` does,
    /// and hands out nothing: a stream checked whole before it is applied. Record insertions in
    /// the form a store journals them are checked without being decoded.
    /// - Returns: the number of entries the stream held (``count``).
    @discardableResult
    public func readThrough() throws(JournalStreamError) -> UInt64 {
        while try nextRawItem(keepingInsertionsEncoded: true) != nil {}
        return count
    }

    /// What ``nextItem()`` read.
    package enum Item {
        /// A whole commit's entries.
        case commit([JournalEntry])
        /// A position frame: the source's last sequence (``sourceLastSequence`` has it too).
        case position(UInt64)
    }

    /// The next whole commit, or the next position frame, or nil after the end frame. A caller
    /// that holds back commits while more bytes are buffered (to apply them in larger batches)
    /// reads with this, so that a position frame never keeps it waiting for the next commit.
    package func nextItem() throws(JournalStreamError) -> Item? {
        switch try nextRawItem(keepingInsertionsEncoded: false) {
        case .commit(let entries): .commit(try Self.decoded(entries))
        case .position(let sequence): .position(sequence)
        case nil: nil
        }
    }

    /// What ``nextRawItem(keepingInsertionsEncoded:)`` read.
    enum RawItem {
        /// A whole commit's entries.
        case commit(SourceEntries)
        case position(UInt64)
    }

    /// ``nextItem()``, a commit's record insertions kept as their bytes when
    /// `keepingInsertionsEncoded` and ``EncodedInsertion`` vouches for them (the entry decodes to
    /// a record insertion, with the sequence expected, that a store could have journaled); every
    /// other entry decoded, and every entry checked as ``nextItem()`` checks it.
    func nextRawItem(keepingInsertionsEncoded: Bool) throws(JournalStreamError) -> RawItem? {
        self.keepingInsertionsEncoded = keepingInsertionsEncoded
        while !ended {
            let (type, payload, at) = try nextFrame(orEnd: "its end frame (the stream was cut short; a partial commit is not applied)")
            switch type {
            case .entry: try readEntry(payload, at: at)
            case .commit:
                if let commit = try readCommit(payload, at: at) { return .commit(commit) }
            case .end: try readEnd(payload, at: at)
            case .position:
                guard payload.count == 8 else { throw error(.malformed, "is a position frame of \(payload.count) bytes, not 8", at: at) }
                let sequence = integer(UInt64.self, Array(payload), at: 0)
                position = sequence
                return .position(sequence)
            case .header: throw error(.malformed, "is a second header frame", at: at)
            case .error: throw sourceError(payload, at: at)
            }
        }
        return nil
    }

    /// The source's error frame: the stream ends here; a commit it cuts is dropped.
    private func sourceError(_ payload: ArraySlice<UInt8>, at: Int) -> JournalStreamError {
        guard let kind = payload.first.flatMap(JournalStream.ErrorKind.init(rawValue:)) else {
            return error(.malformed, "is an error frame without a kind (1 or 2)", at: at)
        }
        ended = true
        pending.removeAll()
        let message = JournalStream.oneLine(String(decoding: payload.dropFirst(), as: UTF8.self))
        return JournalStreamError(kind == .mayRetry ? .sourceInterrupted : .sourceFailed, "the source stopped the stream: \(message)")
    }

    private func readEntry(_ payload: ArraySlice<UInt8>, at: Int) throws(JournalStreamError) {
        if lastSequence == .max {
            throw error(.malformed, "holds an entry after entry \(UInt64.max): no entry can follow entry \(UInt64.max)", at: at)
        }
        let expected = lastSequence.map { $0 + 1 } ?? header.firstSequence
        let read = payload.withUnsafeBytes { raw in
            keepingInsertionsEncoded ? EncodedInsertion.reading(raw, sequence: expected).flatMap { $0.insertion.namesKeys(in: raw) ? $0 : nil } : nil
        }
        if let (insertion, commitID) = read {
            // Its sequence is the one expected.
            try check(expected, commitID: commitID, at: at)
            payload.withUnsafeBytes { pending.append($0, insertion, sequence: expected, commitID: commitID) }
        } else {
            let entry = try decode(payload, at: at)
            if entry.sequence < expected {
                throw self.error(.outOfOrder, "holds entry \(entry.sequence), a duplicate or out of order (expected \(expected))", at: at)
            }
            if entry.sequence > expected {
                throw self.error(.gap, "holds entry \(entry.sequence) where \(expected) was expected: \(entries(expected, through: entry.sequence - 1)) \(are(expected, through: entry.sequence - 1)) missing", at: at)
            }
            try check(entry.sequence, commitID: entry.commitID, at: at)
            pending.append(decoded: entry)
        }
        lastSequence = expected
        count += 1
    }

    /// The entry in `payload`, decoded and checked to be one a store could have journaled.
    private func decode(_ payload: ArraySlice<UInt8>, at: Int) throws(JournalStreamError) -> JournalEntry {
        let entry: JournalEntry
        switch payload.withUnsafeBytes(EntryDecoding.decode) {
        case .success(let decoded): entry = decoded
        case .failure(let problem):
            throw self.error(.undecodableEntry, "does not decode as a journal entry: \(problem.message)", at: at)
        }
        if let problem = entry.shapeProblem {
            throw self.error(.undecodableEntry, "holds entry \(entry.sequence), which no store journals: \(problem)", at: at)
        }
        return entry
    }

    /// Checks that entry `sequence` of commit `commitID`, the one expected next, fits the header and the commit frames.
    private func check(_ sequence: UInt64, commitID: UInt64, at: Int) throws(JournalStreamError) {
        if let last = header.lastSequence, sequence > last {
            throw self.error(.malformed, "holds entry \(sequence), past the header's last sequence \(last)", at: at)
        }
        if let open = pending.entries.first?.commitID, commitID != open {
            throw self.error(.malformed, "holds entry \(sequence) of commit \(commitID) inside commit \(open) (no commit frame between them)", at: at)
        }
        if pending.isEmpty, let last = lastCommit, commitID <= last {
            throw self.error(.malformed, "holds entry \(sequence) of commit \(commitID), not after the finished commit \(last)", at: at)
        }
    }

    /// A commit's entries, those kept encoded decoded (none are, read by ``nextItem()``).
    private static func decoded(_ commit: SourceEntries) throws(JournalStreamError) -> [JournalEntry] {
        var entries: [JournalEntry] = []
        entries.reserveCapacity(commit.count)
        for index in 0 ..< commit.count {
            do {
                entries.append(try commit.bytes.withUnsafeBytes { bytes throws(StoreError) in try commit.decoded(index, in: bytes) })
            } catch {
                throw JournalStreamError(.undecodableEntry, "entry \(commit.entries[index].sequence) does not decode: \(error)")
            }
        }
        return entries
    }

    private func readCommit(_ payload: ArraySlice<UInt8>, at: Int) throws(JournalStreamError) -> SourceEntries? {
        guard payload.count == 12 else { throw error(.malformed, "is a commit frame of \(payload.count) bytes, not 12", at: at) }
        let b = Array(payload)
        let commit = integer(UInt64.self, b, at: 0)
        let entries = integer(UInt32.self, b, at: 8)
        guard let first = pending.entries.first, first.commitID == commit, pending.count == Int(entries) else {
            throw error(.malformed, "closes commit \(commit) of \(entries) entries, but \(pending.count) entries of commit \(pending.entries.first.map { String($0.commitID) } ?? "none") precede it", at: at)
        }
        lastCommit = commit
        defer { pending.removeAll() }
        return pending
    }

    private func readEnd(_ payload: ArraySlice<UInt8>, at: Int) throws(JournalStreamError) {
        guard payload.count == 16 else { throw error(.malformed, "is an end frame of \(payload.count) bytes, not 16", at: at) }
        let b = Array(payload)
        let total = integer(UInt64.self, b, at: 0)
        let last = integer(UInt64.self, b, at: 8)
        guard pending.isEmpty else { throw error(.malformed, "ends the stream inside commit \(pending.entries[0].commitID) (no commit frame)", at: at) }
        guard total == count, last == (lastSequence ?? 0) else {
            throw error(.malformed, "says \(total) entries through \(last), but the stream held \(count) through \(lastSequence ?? 0)", at: at)
        }
        if let announced = header.lastSequence, announced != (lastSequence ?? header.firstSequence - 1) {
            throw error(.truncated, "ends the stream at entry \(lastSequence ?? 0), before the header's last sequence \(announced)", at: at)
        }
        guard try source.take(1) == nil else {
            throw JournalStreamError(.malformed, "bytes follow the end frame (frame \(frameNumber)), at byte \(source.offset - 1)")
        }
        ended = true
    }

    /// Reads one frame and checks its length and checksum.
    /// - Returns: its type, payload and offset.
    private func nextFrame(orEnd what: String) throws(JournalStreamError) -> (JournalStream.FrameType, ArraySlice<UInt8>, Int) {
        let at = source.offset
        frameNumber += 1
        guard let prefix = try source.take(5) else {
            if source.available == 0 {
                throw JournalStreamError(.truncated, "the stream ends after frame \(frameNumber - 1), at byte \(at), before \(what)")
            }
            throw error(.truncated, "is cut short: the stream ends inside it", at: at)
        }
        let p = Array(prefix)
        let length = Int(integer(UInt32.self, p, at: 0))
        guard length <= JournalStream.maxPayload else {
            throw error(.frameTooLarge, "claims \(length) bytes, more than a frame may hold (\(JournalStream.maxPayload)): frame too large", at: at)
        }
        guard let rest = try source.take(length + 4) else {
            throw error(.truncated, "is cut short: the stream ends inside it", at: at)
        }
        let payload = rest.prefix(length)
        let stored = integer(UInt32.self, Array(rest.suffix(4)), at: 0)
        let crc = payload.withUnsafeBytes { JournalStream.checksum(type: p[4], payload: $0) }
        guard crc == stored else {
            throw error(.checksumMismatch, "fails its checksum (stored \(hex(stored)), computed \(hex(crc))): the stream is corrupt", at: at)
        }
        guard let type = JournalStream.FrameType(rawValue: p[4]) else {
            throw error(.malformed, "has unknown type \(p[4])", at: at)
        }
        return (type, payload, at)
    }

    private func error(_ code: JournalStreamError.Code, _ problem: String, at offset: Int) -> JournalStreamError {
        JournalStreamError(code, "frame \(frameNumber) at byte \(offset) \(problem)")
    }

    private func hex(_ value: UInt32) -> String { "0x" + String(value, radix: 16, uppercase: true) }
}

/// Decoding an entry frame: an entry is decodable when it reads as a journal entry, directly or
/// through the generic decoder.
private struct EntryDecoding: Error {
    let message: String

    static func decode(_ raw: UnsafeRawBufferPointer) -> Result<JournalEntry, EntryDecoding> {
        // An entry in the shape the journal writes decodes straight from its bytes; anything else
        // (or bytes the direct path finds wrong) goes through the generic decoder, which names
        // the problem.
        if let entry = try? JournalCodec.decodeDirectly(raw) { return .success(entry) }
        let dictionary: [String: Value]
        do { dictionary = try RecordCodec.decode(raw) } catch { return .failure(EntryDecoding(message: "\(error)")) }
        do { return .success(try JournalEntry(dictionary: dictionary)) } catch { return .failure(EntryDecoding(message: "\(error)")) }
    }
}

/// Reads little-endian `T` at `offset` of `bytes`.
func integer<T: FixedWidthInteger>(_: T.Type, _ bytes: [UInt8], at offset: Int) -> T {
    var value: T = 0
    for i in (0..<MemoryLayout<T>.size).reversed() { value = value << 8 | T(bytes[offset + i]) }
    return value
}

/// Bytes from memory or from a file descriptor, read ahead in chunks.
private struct ByteSource {
    private var buffer: [UInt8]
    private var position = 0
    private let descriptor: Int32?
    private var atEnd: Bool
    /// The absolute offset of the next byte.
    private(set) var offset = 0
    private static let chunk = 1 << 16

    init(bytes: [UInt8]) {
        buffer = bytes
        descriptor = nil
        atEnd = true
    }

    init(descriptor: Int32) {
        self.init(bytes: [], then: descriptor)
    }

    /// `bytes`, then what `descriptor` reads.
    init(bytes: [UInt8], then descriptor: Int32) {
        buffer = bytes
        self.descriptor = descriptor
        atEnd = false
    }

    /// Bytes buffered but not consumed.
    var available: Int { buffer.count - position }

    /// The next `count` bytes, or nil (consuming what remains) when the stream ends first.
    mutating func take(_ count: Int) throws(JournalStreamError) -> ArraySlice<UInt8>? {
        while available < count && !atEnd { try fill(wanting: count) }
        guard available >= count else { return nil }
        defer { position += count; offset += count }
        return buffer[position..<position + count]
    }

    private mutating func fill(wanting count: Int) throws(JournalStreamError) {
        guard let descriptor else { return }
        if position > 0 {
            buffer.removeFirst(position)
            position = 0
        }
        let want = max(Self.chunk, count - buffer.count)
        let start = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: want))
        let got = buffer.withUnsafeMutableBytes { raw -> Int in
            while true {
                let n = read(descriptor, raw.baseAddress! + start, want)
                if n < 0 && errno == EINTR { continue }
                return n
            }
        }
        guard got >= 0 else {
            buffer.removeLast(want)
            throw JournalStreamError(.io, "reading the stream failed: \(String(cString: strerror(errno)))")
        }
        buffer.removeLast(want - got)
        if got == 0 { atEnd = true }
    }
}
