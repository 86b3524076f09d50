import Foundation
import PropertyBased
import Testing
@testable import KVStore

/// Property-based checks of the typed layer over generated inputs: Codable round trips, the
/// merge's algebra (in memory and in the store), and exact change dictionaries.
@Suite struct TypedPropertyTests {
    // MARK: Codable round trips

    struct SampleModel: StoredModel, Hashable {
        static let kind = "sample"
        var id: String
        var sample: Sample
    }

    @Test func modelsRoundTripThroughValuesAndTheStore() async throws {
        let t = try TemporaryStore()
        await propertyCheck(count: 100, input: Generators.sample) { sample in
            let value = try ValueEncoder().encode(sample)
            #expect(try ValueDecoder().decode(Sample.self, from: value) == sample)
            let model = SampleModel(id: UUID().uuidString, sample: sample)
            try t.store.insert(model)
            #expect(try t.store.fetch(SampleModel.self, id: model.id) == model)
        }
    }

    // MARK: Merge

    @Test func mergeIsIdempotentCommutativeAndAssociative() async {
        await propertyCheck(count: 300, input: Generators.stamped, Generators.stamped, Generators.stamped) { a, b, c in
            #expect(a.merged(with: a) == a)
            #expect(a.merged(with: b) == b.merged(with: a))
            #expect(a.merged(with: b).merged(with: c) == a.merged(with: b.merged(with: c)))
        }
    }

    @Test func mergingInTheStoreIsOrderIndependentAndIdempotent() async throws {
        var kind = try Kind("doc")
        kind.tracksModificationTimes = true
        let first = try TemporaryStore(kinds: [kind]), second = try TemporaryStore(kinds: [kind])
        await propertyCheck(count: 60, input: Generators.stamped, Generators.stamped, Generators.stamped) { base, a, b in
            let doc = try RecordRef(kind: "doc", id: UUID().uuidString)
            for store in [first.store, second.store] {
                try store.write { txn in
                    try txn.insert(base.values, as: doc)
                    try txn.saveModificationTimes(base.stamps, of: doc)
                }
            }
            let firstChanges = try first.store.merge(doc, from: a)
            try first.store.merge(doc, from: b)
            try second.store.merge(doc, from: b)
            try second.store.merge(doc, from: a)
            let result = try #require(try first.store.stampedRecord(doc))
            #expect(try second.store.stampedRecord(doc) == result)
            #expect(result == base.merged(with: a).merged(with: b))
            #expect(try first.store.merge(doc, from: a).isEmpty)
            #expect(try first.store.stampedRecord(doc) == result)
            #expect(firstChanges == Reference.changes(from: base.values, to: base.merged(with: a).values))
        }
    }

    // MARK: Change dictionaries

    @Test func updateReportsExactlyTheKeysThatDiffered() async throws {
        let t = try TemporaryStore()
        let keys = Generators.keys.set(ofAtMost: 0...5).optional(valueRate: 0.5)
        await propertyCheck(count: 150, input: Generators.values, Generators.values, keys) { current, other, keys in
            let doc = try RecordRef(kind: "doc", id: UUID().uuidString)
            try t.store.insert(current, as: doc)
            let before = try t.store.read { try $0.lastSequence() }
            let changes = try t.store.update(doc, from: other, keys: keys)
            var expected = current
            for key in keys ?? Set(current.keys).union(other.keys) { expected[key] = other[key].flatMap { $0.isNull ? nil : $0 } }
            #expect(changes == Reference.changes(from: current, to: expected))
            #expect(try t.store.record(doc) == expected)
            #expect(try t.store.read { try $0.lastSequence() } - before == UInt64(changes.count))
        }
    }
}

/// Change dictionaries computed directly from two versions, to compare the store's with.
enum Reference {
    static func changes(from old: [String: Value], to new: [String: Value]) -> [String: ValueChange] {
        var changes: [String: ValueChange] = [:]
        for key in Set(old.keys).union(new.keys) where old[key] != new[key] {
            changes[key] = ValueChange(old: old[key], new: new[key])
        }
        return changes
    }
}

/// Generators of the property tests.
enum Generators {
    static let text = Gen.letterOrNumber.string(of: 0...8)
    static let keys = Gen.int(in: 0...5).map { "k\($0)" }

    /// Small values, some equal across draws, some differing only in type (1 and 1.0).
    static let value = Gen.int(in: 0...8).map { index -> Value in
        let pool: [Value] = [1, 2, 1.0, "a", "b", .null, ["x": 1], [1, 2], .bool(true)]
        return pool[index]
    }

    static let values = zip(keys, value).array(of: 0...6).map { pairs -> [String: Value] in
        Dictionary(pairs.filter { !$0.1.isNull }, uniquingKeysWith: { _, last in last })
    }

    static let origins = [
        UUID(uuidString: "00000000-0000-0000-0000-000000000001")!,
        UUID(uuidString: "80000000-0000-0000-0000-000000000000")!,
        UUID(uuidString: "ffffffff-ffff-ffff-ffff-ffffffffffff")!,
    ]

    /// Per key: absent, a stamped value, an unstamped value, or a tombstone — with few distinct
    /// times and origins, so that ties happen.
    static let stamped = zip(Gen.int(in: 0...3), Gen.int(in: 0...8), Gen.int(in: 0...2), Gen.int(in: 0...2))
        .array(of: 4)
        .map { states -> StampedRecord in
            var record = StampedRecord(values: [:], stamps: [:])
            for (index, state) in states.enumerated() {
                let key = "k\(index)"
                let stamp = KeyStamp(time: Date(timeIntervalSince1970: Double(state.2)), origin: origins[state.3])
                let value: Value = [1, 2, 1.0, "a", "b", "c", ["x": 1], [1, 2], .bool(true)][state.1]
                switch state.0 {
                case 1: record.values[key] = value; record.stamps[key] = stamp
                case 2: record.values[key] = value
                case 3: record.stamps[key] = stamp
                default: break
                }
            }
            return record
        }

    static let address = zip(text, text.optional).map { Address(city: $0.0, zip: $0.1) }

    static let numbers = zip(
        zip(Gen.int(), Gen.int8(), Gen.int16(), Gen.int32(), Gen.int64(), Gen.double(in: -1e12...1e12)),
        zip(Gen.uint(in: 0...UInt(Int64.max)), Gen.uint8(), Gen.uint16(), Gen.uint32(),
            Gen.uint64(in: 0...UInt64(Int64.max)), Gen.float(in: -1e6...1e6))
    ).map { signed, unsigned in
        Sample.Numbers(
            int: signed.0, int8: signed.1, int16: signed.2, int32: signed.3, int64: signed.4,
            uint: unsigned.0, uint8: unsigned.1, uint16: unsigned.2, uint32: unsigned.3, uint64: unsigned.4,
            double: signed.5, float: unsigned.5)
    }

    static let details = zip(
        text, Gen.bool, Gen.double(in: -4e9...4e9), Gen.uint8().array(of: 0...8),
        text, zip(Gen.uint64(), Gen.uint64()), text.optional
    ).map { parts in
        let (high, low) = parts.5
        var bytes = withUnsafeBytes(of: high.bigEndian, Array.init) + withUnsafeBytes(of: low.bigEndian, Array.init)
        bytes[6] = 0x40 | (bytes[6] & 0x0F)
        bytes[8] = 0x80 | (bytes[8] & 0x3F)
        let uuid = UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                               bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        return Sample.Details(
            text: parts.0, flag: parts.1, when: Date(timeIntervalSince1970: parts.2), blob: Data(parts.3),
            link: URL(string: "https://example.com/\(parts.4)")!, token: uuid,
            owner: parts.6.flatMap { $0.isEmpty ? nil : try? RecordRef(kind: "person", id: $0) })
    }

    static let sample = zip(
        numbers, details, Gen<Status>.case, Gen<Priority>.case, text.array(of: 0...4),
        Gen.int(in: -100...100).optional.array(of: 0...4), text.optional, address.optional, address.array(of: 0...3)
    ).map { parts in
        Sample(numbers: parts.0, details: parts.1, status: parts.2, priority: parts.3, tags: parts.4,
               scores: parts.5, note: parts.6, address: parts.7, addresses: parts.8)
    }
}
