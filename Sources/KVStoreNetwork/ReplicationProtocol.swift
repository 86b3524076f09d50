import Foundation
import KVStore

/// The replication protocol spoken between ``JournalServer`` (`kvstore serve`) and
/// ``JournalClient`` (`kvstore replicate tcp://…`), version 2, over TCP or TLS 1.3.
///
/// All integers are little-endian; messages are frames as in the journal stream
/// (KVStore's `JournalStream`): `length UInt32 | type UInt8 | payload | CRC-32 of type + payload`.
/// ```text
/// client → server, as soon as connected (the server says nothing before it)
///   magic "KVRP" 0D 0A 1A 0A, protocol version UInt16 (2), then
///   'a' opening   the token (``ReplicationToken``), at most 1024 bytes; empty: none
/// server → client  magic, protocol version, then
///   'h' hello     source store id (16) | first sequence UInt64 | last sequence UInt64
///                 (the oldest entry the source's journal holds — last + 1 when it holds none —
///                 and its newest), or an error frame when the server refuses the connection
///                 (no token or a wrong one, another version, too many connections): an
///                 unauthenticated client gets nothing but that refusal
/// client → server
///   'r' request   after UInt64 | flags UInt8: the stream starts after this sequence (the
///                 replica's checkpoint for the source, 0 for a new replica); flag 1 follow (keep
///                 the stream open and push new commits), 2 accept a snapshot when the journal
///                 no longer holds the entry after `after`, 4 send a snapshot whatever `after` is.
///                 A request is 9 bytes; a client frame larger than 64 bytes is refused.
/// server → client, answering a request with one of
///   'x' error     kind UInt8 (1 refused: asking again will not help; 2 busy: too many
///                 connections or shutting down, try later) | one line of UTF-8 naming the
///                 problem; the server then closes the connection
///   's' snapshot  the next bytes (at most 1 MiB) of a compacted copy of the source's data file,
///   'S' snapshot end  total bytes UInt64: the copy is complete; the client makes a replica of
///                 it (checkpoint: the copy's last sequence) and sends a new request after that
///   'j' journal   the journal stream (``JournalStream``, format 1) follows: open-ended with
///                 follow (new commits are pushed as they commit, with a position frame 'P' —
///                 the source's last sequence — about once a second so the replica knows its
///                 lag, and an end frame when the server shuts down), bounded without
/// ```
/// A server on a loopback address may speak plain TCP and ask for no token; on any other
/// address it requires TLS and authentication (a token, or a client certificate).
public enum ReplicationProtocol {
    static let magic: [UInt8] = [0x4B, 0x56, 0x52, 0x50, 0x0D, 0x0A, 0x1A, 0x0A]
    /// The protocol version this build speaks.
    public static let version: UInt16 = 2
    /// The largest frame a client may send.
    static let maxRequestFrame = 64
    /// The largest frame a server sends before the journal stream (a snapshot chunk).
    static let maxServerFrame = 1 << 20
    /// The bytes before a frame's payload: length and type.
    static let framePrefix = 5

    enum FrameType: UInt8 {
        case authentication = 0x61 // a
        case hello = 0x68          // h
        case request = 0x72        // r
        case error = 0x78          // x
        case snapshotData = 0x73   // s
        case snapshotEnd = 0x53    // S
        case journal = 0x6A        // j
    }

    /// The frame `type` with `payload`, encoded.
    static func frame(_ type: FrameType, _ payload: [UInt8] = []) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(payload.count + framePrefix + 4)
        payload.withUnsafeBytes { JournalStream.appendFrame(type: type.rawValue, payload: $0, to: &bytes) }
        return bytes
    }

    /// An error frame: `busy` when asking again later may work.
    static func errorFrame(_ message: String, busy: Bool) -> [UInt8] {
        frame(.error, JournalStream.errorPayload(message, kind: busy ? .mayRetry : .failed))
    }

    /// The magic bytes and version each side starts with.
    static var greeting: [UInt8] {
        magic + [UInt8(version & 0xFF), UInt8(version >> 8)]
    }
}

/// What the server says about its store when a client connects.
struct Hello: Equatable {
    var storeID: UUID
    var firstSequence: UInt64
    var lastSequence: UInt64

    var frame: [UInt8] {
        var payload: [UInt8] = withUnsafeBytes(of: storeID.uuid, Array.init)
        payload.appendLittleEndian(firstSequence)
        payload.appendLittleEndian(lastSequence)
        return ReplicationProtocol.frame(.hello, payload)
    }

    init(storeID: UUID, firstSequence: UInt64, lastSequence: UInt64) {
        self.storeID = storeID
        self.firstSequence = firstSequence
        self.lastSequence = lastSequence
    }

    init?(payload: [UInt8]) {
        guard payload.count == 32 else { return nil }
        let b = payload
        storeID = UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
        firstSequence = payload.littleEndian(at: 16)
        lastSequence = payload.littleEndian(at: 24)
    }
}

/// What a client asks for.
struct Request: Equatable {
    struct Flags: OptionSet {
        let rawValue: UInt8
        static let follow = Flags(rawValue: 1)
        static let acceptsSnapshot = Flags(rawValue: 2)
        static let wantsSnapshot = Flags(rawValue: 4)
    }

    /// The stream starts after this sequence.
    var after: UInt64
    var flags: Flags

    var frame: [UInt8] {
        var payload: [UInt8] = []
        payload.appendLittleEndian(after)
        payload.append(flags.rawValue)
        return ReplicationProtocol.frame(.request, payload)
    }

    init(after: UInt64, flags: Flags) {
        self.after = after
        self.flags = flags
    }

    init?(payload: [UInt8]) {
        guard payload.count == 9, payload[8] & ~7 == 0 else { return nil }
        after = payload.littleEndian(at: 0)
        flags = Flags(rawValue: payload[8])
    }
}

extension [UInt8] {
    mutating func appendLittleEndian(_ value: some FixedWidthInteger) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }

    func littleEndian<T: FixedWidthInteger>(at offset: Int, as _: T.Type = T.self) -> T {
        var value: T = 0
        for i in (0..<MemoryLayout<T>.size).reversed() { value = value << 8 | T(self[offset + i]) }
        return value
    }
}
