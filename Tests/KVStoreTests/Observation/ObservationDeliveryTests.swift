import Foundation
import Testing
import TestSupport
@testable import KVStore

/// The delivery contract (Sources/KVStore/KVStore.docc/Observation.md): after commit, in journal
/// order, each change once per observer, the writer returning after its own notifications,
/// callbacks that write or throw.
@Suite struct ObservationDeliveryTests {
    @Test func aCommitsChangesArriveInJournalOrderOncePerObserver() throws {
        let t = try TemporaryStore()
        let ada = ref("person/ada"), grace = ref("person/grace")
        try t.store.insert(["n": 0], as: ada)
        try t.store.insert(["n": 0], as: grace)
        let received = Received<String>()
        var tokens: [ObservationToken] = []
        for (name, record) in [("ada", ada), ("grace", grace)] {
            tokens.append(try t.store.observe(record, keyPath: "n") { received.add("\(name)=\($0.newValue!) #\($0.sequence!)") })
        }
        tokens.append(try t.store.observe(ada, keyPath: "n") { received.add("ada again=\($0.newValue!)") })
        try t.store.write { txn in
            try txn.setValue(1, forKey: "n", of: ada)
            try txn.setValue(1, forKey: "n", of: grace)
            try txn.setValue(2, forKey: "n", of: ada)
        }
        #expect(received.all == ["ada=1 #3", "ada again=1", "grace=1 #4", "ada=2 #5", "ada again=2"])
        _ = tokens
    }

    @Test func notificationsRunOnlyAfterCommit() throws {
        let (t, ada) = try TemporaryStore.holding(["n": 0], as: "person/ada")
        let store = t.store
        let seen = Received<Value?>()
        let token = try store.observe(ada, keyPath: "n") { _ in
            // A read from the callback sees the committed value.
            seen.add(try? store.value(forKey: "n", of: ada))
        }
        try store.write { txn in
            try txn.setValue(5, forKey: "n", of: ada)
            #expect(seen.count == 0)
        }
        #expect(seen.all == [5])
        _ = token
    }

    @Test func anAbortedWriteDeliversNothing() throws {
        let (t, ada) = try TemporaryStore.holding(["n": 0], as: "person/ada")
        let received = Received<ObservedChange>()
        let token = try t.store.observe(ada, keyPath: "n") { received.add($0) }
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try t.store.write { txn in
                try txn.setValue(9, forKey: "n", of: ada)
                throw Abort()
            }
        }
        try t.store.setValue(0, forKey: "n", of: ada)  // equal to the stored value: no change either
        #expect(received.count == 0)
        try t.store.setValue(1, forKey: "n", of: ada)
        #expect(received.all.map(\.newValue) == [1])
        _ = token
    }

    @Test func settingAnEqualValueDeliversNothing() throws {
        let (t, ada) = try TemporaryStore.holding(["name": "Ada", "address": ["city": "London"]], as: "person/ada")
        let received = Received<ObservedChange>()
        let tokens = [
            try t.store.observe(ada, keyPath: "name") { received.add($0) },
            try t.store.observe(ada, keyPath: "address.city") { received.add($0) },
        ]
        try t.store.setValue("Ada", forKey: "name", of: ada)
        try t.store.setValue("London", forKeyPath: "address.city", of: ada)
        try t.store.setValue(["city": "London", "zip": "NW1"], forKey: "address", of: ada)  // city unchanged
        #expect(received.count == 0)
        _ = tokens
    }

    @Test func aCallbackMayWriteAndItsChangeArrivesAfterTheCurrentBatch() throws {
        let (t, ada) = try TemporaryStore.holding(["name": "Ada", "renames": 0], as: "person/ada")
        let store = t.store
        let received = Received<String>()
        let counter = try store.observe(ada, keyPath: "name") { change in
            received.add("name=\(change.newValue!)")
            let count = try store.value(forKey: "renames", of: ada)?.intValue ?? 0
            try store.setValue(.int(count + 1), forKey: "renames", of: ada)  // returns at once
            received.add("wrote renames")
        }
        let others = [
            try store.observe(ada, keyPath: "name") { received.add("second name=\($0.newValue!)") },
            try store.observe(ada, keyPath: "renames") { received.add("renames=\($0.newValue!)") },
        ]
        try store.setValue("Augusta", forKey: "name", of: ada)
        #expect(received.all == ["name=\"Augusta\"", "wrote renames", "second name=\"Augusta\"", "renames=1"])
        #expect(try store.value(forKey: "renames", of: ada) == 1)
        _ = (counter, others)
    }

    @Test func aThrowingCallbackNeitherBlocksOthersNorUndoesTheCommit() throws {
        let (t, ada) = try TemporaryStore.holding(["n": 0], as: "person/ada")
        struct Broken: Error {}
        let received = Received<String>()
        let tokens = [
            try t.store.observe(ada, keyPath: "n") { _ in received.add("first"); throw Broken() },
            try t.store.observe(ada, keyPath: "n") { _ in received.add("second") },
        ]
        try t.store.setValue(1, forKey: "n", of: ada)
        try t.store.setValue(2, forKey: "n", of: ada)
        #expect(received.all == ["first", "second", "first", "second"])
        #expect(try t.store.value(forKey: "n", of: ada) == 2)
        _ = tokens
    }

    /// Four threads write concurrently; the observer sees every commit once, in journal order,
    /// and each writer returns only after its own commit's notification ran.
    @Test func concurrentWritersDeliverInJournalOrderAndReturnAfterTheirOwnNotifications() throws {
        let (t, counter) = try TemporaryStore.holding(["by": ""], as: "counter/c")
        let store = t.store
        let sequences = Received<UInt64>()
        let notified = Received<String>()
        let token = try store.observe(counter, keyPath: "by") { change in
            sequences.add(change.sequence!)
            notified.add(change.newValue!.stringValue!)
        }
        let failures = Failures()
        let group = DispatchGroup()
        for writer in 0..<4 {
            DispatchQueue.global().async(group: group) {
                for i in 0..<50 {
                    let mark = "w\(writer)-\(i)"
                    do {
                        try store.setValue(.string(mark), forKey: "by", of: counter)
                        if !notified.all.contains(mark) { failures.add("\(mark) returned before its notification") }
                    } catch {
                        failures.add("\(mark): \(error)")
                    }
                }
            }
        }
        group.wait()
        #expect(failures.all == [])
        let journal = try store.journalEntries().filter { $0.keyPath == "by" }.map(\.sequence)
        #expect(sequences.all == journal)
        #expect(journal.count == 200)
        _ = token
    }
}
