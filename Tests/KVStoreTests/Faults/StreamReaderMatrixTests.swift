import Foundation
import Testing
@testable import KVStore

/// The stream reader's bad-input matrix, exhaustively over one stream holding every change kind
/// (``fillWithEveryChange(_:)``): the stream cut at every byte, and every byte flipped. Each
/// variant is refused with one ``JournalStreamError`` (a one-line message naming the frame or the
/// problem), never a crash; every commit handed out before the error is one of the source's whole
/// commits, unaltered; and applying a damaged stream stops at a commit boundary.
/// (Single cases with their exact messages are in ``JournalStreamTests``.)
@Suite struct StreamReaderMatrixTests {
    let source: TemporaryStore
    let bytes: [UInt8]
    let commits: [UInt64: [JournalEntry]]

    init() throws {
        source = try TemporaryStore()
        try fillWithEveryChange(source.store)
        bytes = try exported(source.store)
        commits = Dictionary(grouping: try source.store.journalEntries(), by: \.commitID)
    }

    /// Reads `variant` through: the error it ends with (nil when it reads cleanly) and the commits before it.
    func read(_ variant: [UInt8]) -> (error: (any Error)?, commits: [[JournalEntry]]) {
        var read: [[JournalEntry]] = []
        do {
            let reader = try JournalStreamReader(bytes: variant)
            while let commit = try reader.nextCommit() { read.append(commit) }
            return (nil, read)
        } catch {
            return (error, read)
        }
    }

    func expectRefused(_ variant: [UInt8], _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let (error, read) = read(variant)
        #expect(error is JournalStreamError, "\(what): \(String(describing: error))", sourceLocation: sourceLocation)
        #expect(error.map { !"\($0)".contains("\n") } ?? true, "\(what): one line", sourceLocation: sourceLocation)
        for commit in read {
            #expect(commits[commit[0].commitID] == commit, "\(what): commit \(commit[0].commitID) is not the source's", sourceLocation: sourceLocation)
        }
    }

    @Test func aStreamCutAtAnyByteIsRefused() {
        #expect(read(bytes).error == nil)
        for cut in 0..<bytes.count {
            expectRefused(Array(bytes[..<cut]), "cut at \(cut)")
        }
    }

    /// Every byte is either checked by a frame's CRC-32 or is magic, version or a length, so
    /// flipping any one is caught.
    @Test func anyFlippedByteIsRefused() {
        for offset in 0..<bytes.count {
            var variant = bytes
            variant[offset] ^= 0x5A
            expectRefused(variant, "byte \(offset) flipped")
        }
    }

    /// Applied as it arrives (no check first): a damaged stream applies whole commits up to the
    /// damage and stops with the stream's error; the replica's checkpoint is the end of a source
    /// commit and it journaled exactly the entries through it — never part of a commit.
    @Test func applyingADamagedStreamStopsAtACommitBoundary() throws {
        let offsets = JournalStreamTests.frameOffsets(bytes)
        let commitEnds = Set(commits.values.map { $0.last!.sequence })
        var variants: [(String, [UInt8])] = [("cut", Array(bytes.dropLast(3)))]
        for (index, offset) in offsets.enumerated().dropFirst() {
            var flipped = bytes
            flipped[offset + 6] ^= 1
            variants.append(("frame \(index + 1) flipped", flipped))
        }
        for (what, variant) in variants {
            let replica = try TemporaryStore()
            #expect(throws: JournalStreamError.self, "\(what)") { try apply(variant, to: replica.store) }
            let checkpoint = try replica.store.read { try $0.replicationCheckpoint(for: source.store.id) }
            #expect(checkpoint == 0 || commitEnds.contains(checkpoint), "\(what): checkpoint \(checkpoint)")
            #expect(try replica.store.journalEntries().count == Int(checkpoint), "\(what)")
            #expect(try replica.store.verify().isHealthy, "\(what)")
        }
    }
}
