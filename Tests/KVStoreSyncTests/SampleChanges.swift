import Foundation
import KVStore
import KVStoreSync

/// Changes for tests: `count` sets of `kind/id-N`'s `key` to N, from `origin`, sequences from
/// `first`.
func sampleChanges(_ count: Int, from origin: UUID, first: UInt64 = 1, kind: String = "person",
                   value: (Int) -> Value = { .int(Int64($0)) }) throws -> [HubChange] {
    try (0..<count).map { offset in
        HubChange(origin: origin, originSequence: first + UInt64(offset), stamp: HubStamp(wall: 1_700_000_000_000 + UInt64(offset), counter: 0),
                  record: try RecordRef(kind: kind, id: "id-\(offset)"), key: "n", change: .set, value: value(offset))
    }
}
