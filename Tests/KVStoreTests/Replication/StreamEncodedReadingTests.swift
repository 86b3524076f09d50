import Foundation
import PropertyBased
import Testing
import TestSupport
@testable import KVStore

/// A stream read for the apply, its record insertions kept as their bytes where
/// ``EncodedInsertion`` vouches for them, checks every entry as reading it decoded does: the same
/// error for the same frame, or the same entries.
@Suite struct StreamEncodedReadingTests {
    /// The stream's entries as ``JournalStreamReader/nextCommit()`` reads them, or its error.
    static func readDecoded(_ stream: [UInt8]) -> Result<[JournalEntry], JournalStreamError> {
        Result { () throws(JournalStreamError) in
            let reader = try JournalStreamReader(bytes: stream)
            var entries: [JournalEntry] = []
            while let commit = try reader.nextCommit() { entries += commit }
            return entries
        }
    }

    /// The stream's entries as the apply reads them (those kept encoded decoded afterwards), or its error.
    static func readEncoded(_ stream: [UInt8]) -> Result<[JournalEntry], JournalStreamError> {
        Result { () throws(JournalStreamError) in
            let reader = try JournalStreamReader(bytes: stream)
            var entries: [JournalEntry] = []
            while let item = try reader.nextRawItem(keepingInsertionsEncoded: true) {
                guard case .commit(let commit) = item else { continue }
                for entry in commit.entries {
                    switch entry.form {
                    case .decoded(let decoded): entries.append(decoded)
                    case .encoded(let insertion):
                        let bytes = Array(commit.bytes[insertion.entry])
                        guard let decoded = try? bytes.withUnsafeBytes({ try JournalCodec.decode($0, sequence: entry.sequence) }) else {
                            throw JournalStreamError(.undecodableEntry, "entry \(entry.sequence), kept encoded, does not decode")
                        }
                        entries.append(decoded)
                    }
                }
            }
            return entries
        }
    }

    /// A stream of one commit: an insertion, then the entry `bytes` (sequence 2 of the same commit).
    static func stream(with bytes: [UInt8], commit: UInt64 = 3) throws -> [UInt8] {
        var stream: [UInt8] = []
        let writer = try JournalStreamWriter(header: JournalStreamHeader(storeID: UUID(), firstSequence: 1, lastSequence: 2)) { stream += $0 }
        let first = JournalEntry(sequence: 1, commitID: commit, timestamp: Date(timeIntervalSince1970: 1), origin: nil, ref: ref("thing/0"),
                                 keyPath: nil, change: .recordInserted, oldValue: nil, newValue: ["a": 1])
        try writer.append(first)
        try bytes.withUnsafeBytes { try writer.append(encoded: $0, sequence: 2, commitID: commit) }
        try writer.finish()
        return stream
    }

    static func insertion(_ values: [String: Value], sequence: UInt64 = 2, origin: JournalOrigin? = nil, ref: RecordRef = ref("thing/1")) -> JournalEntry {
        JournalEntry(sequence: sequence, commitID: 3, timestamp: Date(timeIntervalSince1970: 2), origin: origin, ref: ref,
                     keyPath: nil, change: .recordInserted, oldValue: nil, newValue: .dictionary(values))
    }

    static func expectAlike(_ stream: [UInt8], _ comment: Comment? = nil) {
        switch (readDecoded(stream), readEncoded(stream)) {
        case (.success(let decoded), .success(let encoded)):
            #expect(decoded == encoded, comment)
        case (.failure(let decoded), .failure(let encoded)):
            #expect(decoded.code == encoded.code && decoded.message == encoded.message, comment)
        case (let decoded, let encoded):
            Issue.record("decoded: \(decoded), kept encoded: \(encoded); \(comment?.rawValue ?? "")")
        }
    }

    /// Generated insertions, with and without an origin, and damaged versions of them.
    @Test func damagedInsertionsAreReadAsReadingThemDecodedReadsThem() async {
        await propertyCheck(count: 60, input: Gen.uint64()) { seed in
            var sampler = ValueSampler(seed: seed, asciiKeysOnly: seed % 2 == 0)
            let origin = seed % 3 == 0 ? nil : JournalOrigin(storeID: UUID(), sequence: seed % 1_000)
            let bytes = JournalCodec.encode(Self.insertion(sampler.record(), origin: origin, ref: sampler.reference()))
            for damaged in [bytes] + (0 ..< 60).map({ _ in sampler.damaged(bytes) }) {
                Self.expectAlike((try? Self.stream(with: damaged)) ?? [], "\(damaged)")
            }
        }
    }

    /// Insertions no store journals (a key no key path names), and entries out of place: the
    /// decoded reading's errors.
    @Test(arguments: ["a.b", "@x", "", "long.key.with.dots", "@long-key-name"])
    func anInsertionWithAKeyNoKeyPathNamesIsRefused(_ key: String) throws {
        let stream = try Self.stream(with: JournalCodec.encode(Self.insertion([key: 1, "b": 2])))
        guard case .failure(let error) = Self.readEncoded(stream) else { Issue.record("\(key) read"); return }
        #expect(error.code == .undecodableEntry && error.message.contains("which no key path can name"))
        Self.expectAlike(stream)
    }

    @Test func insertionsOutOfPlaceAreRefusedAsDecoded() throws {
        Self.expectAlike(try Self.stream(with: JournalCodec.encode(Self.insertion(["a": 1], sequence: 3))))
        Self.expectAlike(try Self.stream(with: JournalCodec.encode(Self.insertion(["a": 1], sequence: 1))))
        var other = Self.insertion(["a": 1])
        other.commitID = 4
        Self.expectAlike(try Self.stream(with: JournalCodec.encode(other)))
        Self.expectAlike(try Self.stream(with: JournalCodec.encode(other), commit: 2))
    }
}
