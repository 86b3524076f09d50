import Foundation

/// Writes a journal stream (``JournalStream``): the header when created, then entries as they
/// are appended, a commit frame whenever the commit id changes or a batch ends, and the end frame
/// on ``finish()``.
///
/// An open-ended writer (header `lastSequence` nil) can take any number of batches: append the
/// entries read from one snapshot of the journal, then call ``endBatch()`` (a snapshot holds whole
/// commits, so the batch's last commit is complete), and so on.
///
/// ```swift
/// let writer = try JournalStreamWriter(header: header) { bytes in try file.write(contentsOf: bytes) }
/// for entry in entries { try writer.append(entry) }
/// try writer.finish()
/// ```
/// Bytes go to `output` in chunks of about 64 KiB, and whenever a batch ends.
public final class JournalStreamWriter {
    /// The header written first.
    public let header: JournalStreamHeader
    /// How many entries were written.
    public private(set) var count: UInt64 = 0
    private let output: ([UInt8]) throws -> Void
    private var buffer: [UInt8] = []
    private var pending: (commit: UInt64, count: UInt32)?
    private var lastSequence: UInt64?
    private var finished = false
    /// `output` threw: nothing more can be sent.
    private var outputFailed = false
    private static let flushThreshold = 1 << 16

    /// Starts a stream: the magic bytes, the format version and the header frame, sent to
    /// `output` with the first chunk (at ``endBatch()`` or ``finish()`` at the latest).
    public init(header: JournalStreamHeader, output: @escaping ([UInt8]) throws -> Void) throws {
        self.header = header
        self.output = output
        buffer.reserveCapacity(Self.flushThreshold * 2)
        buffer.append(contentsOf: JournalStream.magic)
        append(JournalStream.formatVersion)
        var payload: [UInt8] = withUnsafeBytes(of: header.storeID.uuid, Array.init)
        appendInteger(header.firstSequence, to: &payload)
        appendInteger(header.lastSequence ?? 0, to: &payload)
        payload.append(header.lastSequence == nil ? JournalStream.openEndedFlag : 0)
        payload.withUnsafeBytes { frame(.header, $0) }
    }

    /// Appends one entry; its sequence must follow the previous entry's (the first: the header's
    /// first sequence). Appending after ``finish()`` is a programming error (it traps).
    /// - Throws: ``JournalStreamError`` (`gap` or `outOfOrder` for a sequence that does not
    ///   follow, `malformed` past the header's last sequence, `frameTooLarge`); what `output`
    ///   throws when a chunk is sent.
    public func append(_ entry: JournalEntry) throws {
        try JournalCodec.encode(entry).withUnsafeBytes { try append(encoded: $0, sequence: entry.sequence, commitID: entry.commitID) }
    }

    /// Appends one entry already in the journal's encoding (export copies stored bytes).
    func append(encoded: UnsafeRawBufferPointer, sequence: UInt64, commitID: UInt64) throws {
        precondition(!finished, "append after finish")
        let expected = lastSequence.map { $0 + 1 } ?? header.firstSequence
        guard sequence == expected else {
            throw JournalStreamError(
                sequence > expected ? .gap : .outOfOrder,
                "entry \(sequence) cannot follow \(lastSequence.map { "entry \($0)" } ?? "the header (first sequence \(header.firstSequence))"): the journal read has a gap or is out of order")
        }
        if let last = header.lastSequence, sequence > last {
            throw JournalStreamError(.malformed, "entry \(sequence) is past the header's last sequence \(last)")
        }
        guard encoded.count < JournalStream.maxPayload else {
            throw JournalStreamError(.frameTooLarge, "entry \(sequence) is \(encoded.count) bytes, more than a frame holds (\(JournalStream.maxPayload))")
        }
        if let pending, pending.commit != commitID { try closeCommit() }
        frame(.entry, encoded)
        pending = (commitID, (pending?.count ?? 0) + 1)
        lastSequence = sequence
        count += 1
        if buffer.count >= Self.flushThreshold { try flush() }
    }

    /// Ends a batch read from one snapshot: closes the open commit and sends what is buffered.
    public func endBatch() throws {
        try closeCommit()
        try flush()
    }

    /// Ends the stream: closes the open commit and writes the end frame.
    /// - Throws: ``JournalStreamError/Code/malformed`` when fewer entries were written than the
    ///   header announced.
    public func finish() throws {
        if let last = header.lastSequence, (lastSequence ?? header.firstSequence - 1) != last {
            throw JournalStreamError(.malformed, "the stream ends at entry \(lastSequence ?? 0), before the header's last sequence \(last)")
        }
        try closeCommit()
        var payload: [UInt8] = []
        appendInteger(count, to: &payload)
        appendInteger(lastSequence ?? 0, to: &payload)
        payload.withUnsafeBytes { frame(.end, $0) }
        finished = true
        try flush()
    }

    /// Ends the stream with an error frame carrying `message` (one line), in place of the end
    /// frame: the source cannot go on. A commit left open is cut (a reader does not apply it);
    /// the reader throws ``JournalStreamError/Code/sourceFailed``, or
    /// ``JournalStreamError/Code/sourceInterrupted`` when `mayRetry` (a new request from the
    /// reader's position may work). Does nothing after ``finish()`` or once `output` failed.
    ///
    /// ```swift
    /// do {
    ///     for entry in entries { try writer.append(entry) }
    ///     try writer.finish()
    /// } catch {
    ///     try writer.fail("\(error)")   // the reader throws `sourceFailed` with this message
    /// }
    /// ```
    /// - Throws: what `output` throws.
    public func fail(_ message: String, mayRetry: Bool = false) throws {
        guard !finished, !outputFailed else { return }
        finished = true
        JournalStream.errorPayload(message, kind: mayRetry ? .mayRetry : .failed).withUnsafeBytes { frame(.error, $0) }
        try flush()
    }

    /// Runs `body`, which writes to this stream; when it throws, ends the stream with an error
    /// frame naming the error (``fail(_:mayRetry:)``; retrying may work when the journal was
    /// truncated past the stream's position), then rethrows. The exports write through this.
    package func endingWithError<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            let expired = (error as? JournalRetentionError)?.code == .cursorExpired
            try? fail(Self.message(of: error), mayRetry: expired)
            throw error
        }
    }

    /// What an error frame says of `error`: the store's errors without the store's path (the
    /// reader may be on another machine), others as they describe themselves.
    private static func message(of error: any Error) -> String {
        switch error {
        case let error as JournalRetentionError: error.message
        case let error as StoreError: error.message
        case let error as JournalStreamError: error.message
        default: "\(error)"
        }
    }

    private func closeCommit() throws {
        guard let pending else { return }
        var payload: [UInt8] = []
        appendInteger(pending.commit, to: &payload)
        appendInteger(pending.count, to: &payload)
        payload.withUnsafeBytes { frame(.commit, $0) }
        self.pending = nil
    }

    private func flush() throws {
        guard !buffer.isEmpty else { return }
        do { try output(buffer) } catch {
            outputFailed = true
            throw error
        }
        buffer.removeAll(keepingCapacity: true)
    }

    private func frame(_ type: JournalStream.FrameType, _ payload: UnsafeRawBufferPointer) {
        JournalStream.appendFrame(type: type.rawValue, payload: payload, to: &buffer)
    }

    private func append(_ value: some FixedWidthInteger) {
        appendInteger(value, to: &buffer)
    }
}

/// Appends `value`'s little-endian bytes.
func appendInteger(_ value: some FixedWidthInteger, to bytes: inout [UInt8]) {
    withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
}
