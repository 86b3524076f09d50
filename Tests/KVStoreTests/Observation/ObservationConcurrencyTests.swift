import Foundation
import Testing
import TestSupport
@testable import KVStore

/// Observers that start, stop and write while other threads write (run under ThreadSanitizer:
/// `swift test --sanitize=thread --filter Observation`).
@Suite struct ObservationConcurrencyTests {
    /// Writers on four threads; meanwhile observers start and stop on two others, one observer
    /// cancels another from its callback, one starts an observer from its callback, and tokens
    /// are released on threads other than their own. The steady observers see every change of
    /// their record once, in journal order, and nothing deadlocks.
    @Test func observersStartAndStopWhileThreadsWrite() throws {
        let t = try TemporaryStore()
        let store = t.store
        let records = (0..<4).map { ref("counter/\($0)") }
        for record in records { try store.insert(["n": 0], as: record) }
        let seen = records.map { _ in Received<UInt64>() }
        var tokens = try records.indices.map { i in
            try store.observe(records[i], keyPath: "n") { seen[i].add($0.sequence!) }
        }
        let victim = TokenBox()
        victim.token = try store.observe(records[1], keyPath: "n") { _ in }
        tokens.append(try store.observe(records[0], keyPath: "n") { _ in victim.token?.cancel() })
        let started = Received<ObservationToken>()
        tokens.append(try store.observe(records[2], keyPath: "n") { change in
            guard change.newValue!.intValue! % 10 == 0 else { return }
            started.add(try store.observe(records[3], keyPath: "n", options: [.initial], { _ in }))
        })
        let failures = Failures()
        let group = DispatchGroup()
        for writer in 0..<4 {
            DispatchQueue.global().async(group: group) {
                for i in 1...40 {
                    do { try store.setValue(.int(Int64(i)), forKey: "n", of: records[writer]) } catch { failures.add("\(error)") }
                }
            }
        }
        for watcher in 0..<2 {
            DispatchQueue.global().async(group: group) {
                for i in 0..<40 {
                    do {
                        let token = try store.observe(records[(watcher + i) % 4], keyPath: "n", options: [.initial, .old, .new]) { _ in }
                        if i % 2 == 0 { token.cancel() }
                        DispatchQueue.global().async(group: group) { _ = token }  // released over there
                    } catch {
                        failures.add("\(error)")
                    }
                }
            }
        }
        group.wait()
        #expect(failures.all == [])
        for i in records.indices {
            let journal = try store.journalEntries().filter { $0.ref == records[i] && $0.keyPath == "n" }.map(\.sequence)
            #expect(journal.count == 40)
            #expect(seen[i].all == journal)
        }
        #expect(started.count == 4)
        _ = tokens
    }

    /// An observer mirrors one record into another from its callback while three threads write
    /// the first (each waiting for its own delivery): no deadlock, every mirror write is
    /// delivered, in journal order, and the mirror ends on the last value.
    @Test func callbacksWriteWhileOtherThreadsWaitForTheirDelivery() throws {
        let t = try TemporaryStore()
        let store = t.store
        let source = ref("counter/source"), mirror = ref("counter/mirror")
        try store.insert(["n": 0], as: source)
        try store.insert(["n": 0], as: mirror)
        let mirrored = Received<UInt64>()
        let failures = Failures()
        let tokens = [
            try store.observe(source, keyPath: "n") { change in
                do { try store.setValue(change.newValue, forKey: "n", of: mirror) } catch { failures.add("\(error)") }
            },
            try store.observe(mirror, keyPath: "n") { mirrored.add($0.sequence!) },
        ]
        let group = DispatchGroup()
        for writer in 0..<3 {
            DispatchQueue.global().async(group: group) {
                for i in 1...30 {
                    do { try store.setValue(.int(Int64(writer * 100 + i)), forKey: "n", of: source) } catch { failures.add("\(error)") }
                }
            }
        }
        group.wait()
        #expect(failures.all == [])
        let journal = try store.journalEntries()
        #expect(mirrored.all == journal.filter { $0.ref == mirror && $0.keyPath == "n" }.map(\.sequence))
        #expect(mirrored.count == 90)
        #expect(try store.value(forKey: "n", of: mirror) == journal.last { $0.ref == source && $0.keyPath == "n" }?.newValue)
        _ = tokens
    }
}
