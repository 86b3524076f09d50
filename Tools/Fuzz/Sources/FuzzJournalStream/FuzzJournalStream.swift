import Foundation
import FuzzSupport
import KVStore

// The journal stream reader (`JournalStreamReader`, what `journal apply` and replicas read) on
// whole stream bytes, and every 8th input that has a readable header also the applier
// (`Store.applyJournal`) into a fresh scratch store. Checks:
// - no trap; a reader failure is a `JournalStreamError` (typed throws) with a one-line message;
// - every commit handed out is whole: its entries share one commit id, continue the sequence
//   from the header's first, and match, in order, a commit frame ('C', checksum valid) of the
//   bytes — found by an independent frame scan — with that id and entry count;
// - a stream read to its end frame accounts for every entry (`count`, `lastSequence`);
// - the applier never applies part of a commit: after an apply, failed or not, the replica's
//   checkpoint is the last sequence of one of the whole commits the reader handed out (or 0);
//   a successful apply reaches the last one, and applying the stream again applies nothing.
//   Its failures are one line.

@_cdecl("FuzzJournalStream_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, seeds: seeds, callback: fuzzOne)
}

/// Real exports (whole, from a later sequence), one cut inside its last commit, and one ended by
/// the source's error frame.
func seeds() throws -> [[UInt8]] {
    let whole = try ScratchStore.sampleStream()
    let later = try ScratchStore.sampleStream(since: 4)
    var failed: [UInt8] = []
    let writer = try JournalStreamWriter(
        header: JournalStreamHeader(storeID: UUID(), firstSequence: 1, lastSequence: nil), output: { failed += $0 })
    try writer.fail("the journal was truncated past 1", mayRetry: true)
    return [whole, later, Array(whole.dropLast(30)), failed]
}

nonisolated(unsafe) var inputsWithHeader = 0

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = inputBytes(data, count)
    let reader: JournalStreamReader
    do {
        reader = try JournalStreamReader(bytes: bytes)
    } catch {
        requireOneLine(error.message, from: "JournalStreamReader.init")
        return 0
    }
    let frames = CommitFrames(bytes)
    var commits: [[JournalEntry]] = []
    var next = reader.header.firstSequence
    var ended = false
    do {
        while let commit = try reader.nextCommit() {
            require(!commit.isEmpty, "an empty commit was handed out")
            let id = commit[0].commitID
            for entry in commit {
                require(entry.commitID == id, "a commit mixes commit ids \(id) and \(entry.commitID)")
                require(entry.sequence == next, "entry \(entry.sequence) handed out where \(next) was next")
                next &+= 1
            }
            let index = commits.count
            require(index < frames.commits.count, "commit \(id) handed out without a commit frame")
            require(frames.commits[index] == (id, UInt32(commit.count)),
                    "commit \(id) of \(commit.count) entries handed out for the commit frame \(frames.commits[index])")
            commits.append(commit)
        }
        ended = true
    } catch {
        requireOneLine(error.message, from: "JournalStreamReader.nextCommit")
    }
    let entries = commits.reduce(0) { $0 + $1.count }
    if ended {
        require(reader.count == UInt64(entries), "the reader counted \(reader.count) entries, handed out \(entries)")
        require(reader.lastSequence == commits.last?.last?.sequence, "lastSequence disagrees with the entries")
    }
    inputsWithHeader += 1
    if inputsWithHeader % 8 == 0 { checkApply(bytes, commits: commits, succeeded: ended) }
    return 0
}

/// Applies the stream to a fresh store and checks it applied whole commits only.
func checkApply(_ bytes: [UInt8], commits: [[JournalEntry]], succeeded: Bool) {
    guard let scratch = try? ScratchStore() else { return }
    defer { scratch.remove() }
    let boundaries = Set([0] + commits.map { $0.last!.sequence })
    var applied = false
    do {
        guard let reader = try? JournalStreamReader(bytes: bytes) else { require(false, "the stream's header no longer reads"); return }
        _ = try scratch.store.applyJournal(reader)
        applied = true
    } catch {
        requireOneLine(String(describing: error), from: "Store.applyJournal", quoting: bytes)
    }
    guard let header = try? JournalStreamReader(bytes: bytes).header,
          let checkpoint = try? scratch.store.read({ try $0.replicationCheckpoint(for: header.storeID) })
    else { require(false, "the replica's checkpoint cannot be read"); return }
    require(checkpoint == 0 || boundaries.contains(checkpoint),
            "the replica's checkpoint \(checkpoint) is inside a commit (whole commits end at \(boundaries.sorted()))")
    if applied {
        require(succeeded, "the applier accepted a stream the reader refuses")
        require(checkpoint == (commits.last?.last?.sequence ?? 0) || commits.isEmpty,
                "a successful apply stopped at \(checkpoint)")
        do {
            guard let again = try? JournalStreamReader(bytes: bytes) else { return }
            let summary = try scratch.store.applyJournal(again)
            require(summary.applied == 0, "applying the stream again applied \(summary.applied) entries")
        } catch {
            require(false, "applying an applied stream again failed: \(error)")
        }
    }
}

/// The commit frames of a stream, found without the reader: (commit id, entry count) of each
/// 'C' frame whose checksum holds, up to the first frame that is cut short, too large or corrupt.
struct CommitFrames {
    var commits: [(UInt64, UInt32)] = []

    init(_ bytes: [UInt8]) {
        var at = 10  // magic and version
        while at + 5 <= bytes.count {
            let length = Int(Self.integer(UInt32.self, bytes, at))
            guard length <= JournalStream.maxPayload, at + 5 + length + 4 <= bytes.count else { return }
            let type = bytes[at + 4]
            let payload = Array(bytes[(at + 5)..<(at + 5 + length)])
            let stored = Self.integer(UInt32.self, bytes, at + 5 + length)
            guard Self.crc(type: type, payload: payload) == stored else { return }
            if type == 0x43, payload.count == 12 {
                commits.append((Self.integer(UInt64.self, payload, 0), Self.integer(UInt32.self, payload, 8)))
            }
            at += 5 + length + 4
        }
    }

    static func integer<T: FixedWidthInteger>(_: T.Type, _ bytes: [UInt8], _ offset: Int) -> T {
        (0..<MemoryLayout<T>.size).reversed().reduce(T(0)) { $0 << 8 | T(bytes[offset + $1]) }
    }

    /// CRC-32 (IEEE, reflected) of the type byte then the payload, computed bit by bit.
    static func crc(type: UInt8, payload: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in [type] + payload {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
