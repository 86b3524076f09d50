import Foundation

/// The portable journal stream written by `kvstore journal export` and read by `journal apply`:
/// a store's journal entries, framed and checksummed, for pipes, files and ssh.
///
/// Layout (all integers little-endian):
/// ```text
/// magic    "KVJS" 0D 0A 1A 0A           8 bytes (line-ending or text-mode mangling breaks it)
/// version  UInt16                       1
/// frames   length UInt32 | type UInt8 | payload (length bytes) | CRC-32 of type + payload (UInt32)
///   'H' header  source store id (16) | first sequence UInt64 | last sequence UInt64 | flags UInt8
///               (flag 1: open-ended, the last sequence is unknown and reads as 0)
///   'E' entry   one journal entry in the journal's own encoding (``JournalCodec``)
///   'C' commit  commit id UInt64 | entry count UInt32: the entries since the previous commit
///               frame form one whole source commit
///   'Z' end     entry count UInt64 | last sequence UInt64 (0 when the stream holds no entry)
///   'P' position  the source's last sequence UInt64 when the frame was written: a journal server
///               (`kvstore serve`) sends one now and then, so that a replica knows how far behind
///               it is; it may come between any two frames after the header and changes nothing else
///   'x' error   kind UInt8 | one line of UTF-8 text: the source could not go on (kind 1: asking
///               again will not help; 2: a new request from the reader's position may work, e.g.
///               the journal was truncated past it); it ends the stream in place of the end frame,
///               and a commit it cuts is not applied (``JournalStreamWriter/fail(_:mayRetry:)``)
/// ```
/// The header comes first and the end frame last; a reader hands out a commit only once its
/// commit frame arrived, so a stream cut short never yields part of a commit. Entries are
/// contiguous: the first has the header's first sequence, each next one the following sequence.
/// A payload is at most ``maxPayload`` bytes, so a corrupt length cannot make a reader allocate
/// more than that.
public enum JournalStream {
    static let magic: [UInt8] = [0x4B, 0x56, 0x4A, 0x53, 0x0D, 0x0A, 0x1A, 0x0A]
    /// The stream format this build writes and reads.
    public static let formatVersion: UInt16 = 1
    /// The largest frame payload (64 MiB).
    public static let maxPayload = 64 << 20

    enum FrameType: UInt8 {
        case header = 0x48   // H
        case entry = 0x45    // E
        case commit = 0x43   // C
        case end = 0x5A      // Z
        case position = 0x50 // P
        case error = 0x78    // x
    }

    /// The error frame's kinds (the replication protocol's error frame uses the same payload).
    package enum ErrorKind: UInt8 {
        /// Asking again will not help.
        case failed = 1
        /// A new request, from the reader's position, may work.
        case mayRetry = 2
    }

    /// The longest message an error frame carries, in bytes.
    package static let maxErrorMessage = 4096

    /// An error frame's payload: the kind, then `message` as one line (line breaks and other
    /// control characters become spaces), at most ``maxErrorMessage`` bytes of it.
    package static func errorPayload(_ message: String, kind: ErrorKind) -> [UInt8] {
        [kind.rawValue] + Array(oneLine(message).utf8.prefix(maxErrorMessage))
    }

    /// `text` with line breaks and other control characters replaced by spaces.
    package static func oneLine(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : $0 }))
    }

    /// Appends a frame — length, type, payload, CRC-32 of type and payload — to `buffer`.
    package static func appendFrame(type: UInt8, payload: UnsafeRawBufferPointer, to buffer: inout [UInt8]) {
        appendInteger(UInt32(payload.count), to: &buffer)
        buffer.append(type)
        buffer.append(contentsOf: payload)
        appendInteger(checksum(type: type, payload: payload), to: &buffer)
    }

    /// The CRC-32 a frame of `type` with `payload` carries.
    package static func checksum(type: UInt8, payload: UnsafeRawBufferPointer) -> UInt32 {
        withUnsafeBytes(of: type) { CRC32.checksum(payload, continuing: CRC32.checksum($0)) }
    }

    /// A position frame: the source's journal holds entries through `lastSequence`.
    package static func positionFrame(lastSequence: UInt64) -> [UInt8] {
        var payload: [UInt8] = []
        appendInteger(lastSequence, to: &payload)
        var frame: [UInt8] = []
        payload.withUnsafeBytes { appendFrame(type: FrameType.position.rawValue, payload: $0, to: &frame) }
        return frame
    }

    static let openEndedFlag: UInt8 = 1

    /// The bytes before the first entry: magic, version and the header frame (`journal apply`
    /// reads them to tell an open-ended stream from a pipe before deciding how to read the rest).
    package static let headerLength = magic.count + 2 + 5 + 33 + 4
}

/// What a journal stream says about itself before its first entry.
public struct JournalStreamHeader: Sendable, Hashable {
    /// The store whose journal the stream carries.
    public var storeID: UUID
    /// The sequence of the stream's first entry (when it has any).
    public var firstSequence: UInt64
    /// The sequence of the stream's last entry (`firstSequence - 1` for an empty stream), or nil
    /// for an open-ended stream (a follow export) whose end is not known when it starts.
    public var lastSequence: UInt64?

    /// The header of a stream of store `storeID`'s entries from `firstSequence` through
    /// `lastSequence` (nil: open-ended).
    public init(storeID: UUID, firstSequence: UInt64, lastSequence: UInt64?) {
        self.storeID = storeID
        self.firstSequence = firstSequence
        self.lastSequence = lastSequence
    }
}

/// A journal stream that cannot be read or written: each names the problem and where it is (the
/// frame, counted from 1 with the header as frame 1, and its byte offset), as one line.
///
/// ```swift
/// do { _ = try JournalStreamReader(bytes: Array("not a stream".utf8)) } catch { print(error) }
/// // journal stream: not a kvstore journal stream (its first bytes are not the stream's magic bytes)
/// ```
public struct JournalStreamError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, for callers that switch on it.
    public enum Code: String, Sendable {
        /// Not a journal stream: its first bytes are not the magic bytes.
        case badMagic
        /// Written by a newer kvstore, in a format this build does not read.
        case newerFormat
        /// The stream ends inside a frame, or before its end frame.
        case truncated
        /// A frame's checksum does not match its bytes.
        case checksumMismatch
        /// A frame's length is larger than ``JournalStream/maxPayload``.
        case frameTooLarge
        /// An entry's sequence skips ahead of the one expected.
        case gap
        /// An entry's sequence repeats or goes back.
        case outOfOrder
        /// An entry frame does not decode as a journal entry, or holds fields no store journals
        /// (a setting without a key path, a key no key path can name).
        case undecodableEntry
        /// Frames in the wrong order or with wrong contents (unknown type, a commit frame that
        /// does not match its entries, an end frame with the wrong count, bytes after the end).
        case malformed
        /// The stream could not be read or written (an I/O error).
        case io
        /// The source ended the stream with an error frame: it could not go on (a storage error,
        /// an entry too large for a frame). Its message follows; asking again will not help.
        case sourceFailed
        /// The source ended the stream with an error frame saying a new request may work: the
        /// journal was truncated past the reader's position while it followed. A journal server
        /// answers the new request with a snapshot (when the replica accepts one) or a refusal.
        case sourceInterrupted
    }

    /// What went wrong.
    public let code: Code
    /// The problem, naming the frame and byte offset when it concerns one.
    public let message: String

    /// An error with `code` and `message`.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `journal stream: ` and the message.
    public var description: String { "journal stream: \(message)" }
}
