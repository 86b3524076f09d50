import Foundation
import Testing
import TestSupport
@testable import KVStore

@Suite struct ConcurrencyTests {
    /// Eight threads read while one writes: every reader sees a consistent snapshot — the two keys
    /// the writer always changes together are equal, and the journal's last sequence matches the
    /// number of changes visible in the records.
    @Test func eightThreadsReadWhileOneWrites() throws {
        var options = Store.Options.testing
        options.mapSize = 256 << 10  // small, so the map grows while readers are active
        let t = try TemporaryStore(options: options)
        let store = t.store
        let pair = ref("pair/p")
        try store.insert(["x": 0, "y": 0], as: pair)
        let rounds = 400
        let failures = Failures()
        let group = DispatchGroup()
        let writerDone = Flag()
        DispatchQueue.global().async(group: group) {
            do {
                let padding = Value.bytes(Data(repeating: 1, count: 1500))
                for i in 1...rounds {
                    try store.write { txn in
                        try txn.setValue(.int(Int64(i)), forKey: "x", of: pair)
                        try txn.insert(["pad": padding], as: ref("pad/\(i)"))
                        try txn.setValue(.int(Int64(i)), forKey: "y", of: pair)
                    }
                }
            } catch { failures.add("writer: \(error)") }
            writerDone.set()
        }
        for reader in 0..<8 {
            DispatchQueue.global().async(group: group) {
                var reads = 0
                while !writerDone.isSet || reads < 50 {
                    do {
                        try store.read { txn in
                            let x = try txn.value(forKey: "x", of: pair)?.intValue ?? -1
                            let y = try txn.value(forKey: "y", of: pair)?.intValue ?? -2
                            let pads = try txn.count(ofKind: "pad")
                            let last = try txn.lastSequence()
                            if x != y || pads != Int(x) || last != UInt64(1 + 3 * x) {
                                failures.add("reader \(reader): x=\(x) y=\(y) pads=\(pads) last=\(last)")
                            }
                        }
                    } catch { failures.add("reader \(reader): \(error)") }
                    reads += 1
                }
            }
        }
        group.wait()
        #expect(failures.all.isEmpty, "\(failures.all.prefix(5))")
        #expect(try store.value(forKey: "y", of: pair) == .int(Int64(rounds)))
    }

    @Test func tasksWriteConcurrentlyAndEveryChangeIsJournaledOnce() async throws {
        let t = try TemporaryStore()
        let store = t.store
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<8 {
                group.addTask {
                    for i in 0..<25 { try store.insert(["n": .int(Int64(i))], as: ref("w\(writer)/\(i)")) }
                }
            }
            try await group.waitForAll()
        }
        let entries = try store.journalEntries()
        #expect(entries.count == 200)
        #expect(entries.map(\.sequence) == Array(1...200))
        #expect(Set(entries.map(\.commitID)).count == 200)
    }
}

@Test func aStoreWriteInsideAWriteIsAClearError() throws {
    let t = try TemporaryStore()
    let a = ref("k/a")
    try t.store.insert([:], as: a)
    #expect {
        try t.store.write { _ in try t.store.setValue(1, forKey: "x", of: a) }
    } throws: { ($0 as? StoreError)?.code == .nestedWrite }
    #expect(try t.store.record(a) == [:])
}
