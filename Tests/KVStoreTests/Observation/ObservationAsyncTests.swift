import Foundation
import Testing
@testable import KVStore

/// The `AsyncSequence` of changes.
@Suite struct ObservationAsyncTests {
    @Test func aTaskReceivesTheChangesInOrder() async throws {
        let (t, ada) = try TemporaryStore.holding(["n": 0], as: "person/ada")
        let changes = try t.store.changes(of: ada, keyPath: "n", options: [.initial, .new])
        for i in 1...3 { try t.store.setValue(.int(Int64(i)), forKey: "n", of: ada) }  // buffered until read
        var values: [Value?] = []
        for await change in changes {
            values.append(change.newValue)
            if values.count == 4 { break }
        }
        #expect(values == [0, 1, 2, 3])
    }

    @Test func cancellingTheTaskEndsTheSequenceAndTheObservation() async throws {
        let (t, ada) = try TemporaryStore.holding(["n": 0], as: "person/ada")
        let store = t.store
        let changes = try store.changes(of: ada, keyPath: "n")
        let task = Task {
            var count = 0
            for await _ in changes { count += 1 }
            return count  // reached only when the sequence ends
        }
        try store.setValue(1, forKey: "n", of: ada)
        task.cancel()
        let count = await task.value
        #expect(count <= 1)
        #expect(store.observation.observerCount.load(ordering: .relaxed) == 0)
    }

    @Test func droppingTheSequenceUnreadEndsTheObservation() throws {
        let (t, ada) = try TemporaryStore.holding(["n": 0], as: "person/ada")
        do {
            let changes = try t.store.changes(of: ada, keyPath: "n")
            try t.store.setValue(1, forKey: "n", of: ada)
            _ = changes
        }
        #expect(t.store.observation.observerCount.load(ordering: .relaxed) == 0)
    }
}
