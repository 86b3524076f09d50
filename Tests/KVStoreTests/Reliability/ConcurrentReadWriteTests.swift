import Foundation
import Testing
import TestSupport
@testable import KVStore

/// Threads and Swift tasks reading and writing one store at once, with observers attached (run
/// under the sanitizers by `Tools/Scripts/reliability tsan|asan`). The invariants hold however the
/// store serialises or coalesces its writers: no lost update for a counter incremented inside
/// `write` (read-modify-write), every snapshot consistent, the journal contiguous with commit
/// ids increasing, observers seeing every change once in commit order, `verify` healthy.
@Suite struct ConcurrentReadWriteTests {
    static let threads = 4, tasks = 4, commitsEach = 25

    /// Increments `counter/total` (read-modify-write), sets the pair's `a` and `b` to the new
    /// total and the writer's own counter to `i`: four entries, one commit.
    static func commit(_ i: Int, writer: String, in store: Store) throws {
        try store.write { txn in
            let total = ref("counter/total"), pair = ref("pair/p"), own = ref("writer/\(writer)")
            let n = Value.int((try txn.value(forKey: "n", of: total)?.intValue ?? 0) + 1)
            try txn.setValue(n, forKey: "n", of: total)
            try txn.setValue(n, forKey: "a", of: pair)
            try txn.setValue(n, forKey: "b", of: pair)
            if i == 1 { try txn.insert(["n": 1], as: own) } else { try txn.setValue(.int(Int64(i)), forKey: "n", of: own) }
        }
    }

    /// In one snapshot: the pair equals the total, and the journal holds exactly the entries of
    /// that many commits. - Returns: the total seen.
    static func checkSnapshot(of store: Store, failures: Failures, who: String) -> Int64 {
        do {
            return try store.read { txn in
                let n = try txn.value(forKey: "n", of: ref("counter/total"))?.intValue ?? -1
                let a = try txn.value(forKey: "a", of: ref("pair/p"))?.intValue ?? -2
                let b = try txn.value(forKey: "b", of: ref("pair/p"))?.intValue ?? -3
                let last = try txn.lastSequence()
                if n != a || a != b || last != UInt64(2 + 4 * n) { failures.add("\(who): n=\(n) a=\(a) b=\(b) last=\(last)") }
                return n
            }
        } catch {
            failures.add("\(who): \(error)")
            return -1
        }
    }

    /// Runs `body` on a thread of its own, not a dispatch queue's: spinning readers could take
    /// every thread of a pool, starving the work that would stop them.
    static func onThread(_ group: DispatchGroup, _ body: @escaping @Sendable () -> Void) {
        group.enter()
        Thread { body(); group.leave() }.start()
    }

    /// Waits for `group` on a thread of its own.
    static func finished(_ group: DispatchGroup) async {
        await withCheckedContinuation { done in Thread { group.wait(); done.resume() }.start() }
    }

    @Test func threadsAndTasksReadAndWriteWithObserversAttached() async throws {
        let t = try TemporaryStore()
        let store = t.store
        try store.insert(["n": 0], as: ref("counter/total"))
        try store.insert(["a": 0, "b": 0], as: ref("pair/p"))
        let total = Self.threads * Self.commitsEach + Self.tasks * Self.commitsEach
        let failures = Failures()
        let totals = Received<ObservedChange>()
        let writerKinds = Received<KindChanges>()
        let tokens = [
            try store.observe(ref("counter/total"), keyPath: "n", options: [.old, .new]) { totals.add($0) },
            try store.observeKind("writer") { writerKinds.add($0) },
        ]
        let stream = try store.changes(of: ref("counter/total"), keyPath: "n")
        let streamed = Task {
            var values: [Int64] = []
            for await change in stream {
                values.append(change.newValue?.intValue ?? -1)
                if values.count == total { break }
            }
            return values
        }
        let writersDone = Flag()
        let writerThreads = DispatchGroup(), readerThreads = DispatchGroup()
        for thread in 0..<Self.threads {
            Self.onThread(writerThreads) {
                for i in 1...Self.commitsEach {
                    do { try Self.commit(i, writer: "thread\(thread)", in: store) } catch { failures.add("thread \(thread): \(error)") }
                }
            }
        }
        for reader in 0..<2 {
            Self.onThread(readerThreads) {
                var previous: Int64 = 0
                repeat {
                    let n = Self.checkSnapshot(of: store, failures: failures, who: "reader thread \(reader)")
                    if n < previous { failures.add("reader thread \(reader): total went back from \(previous) to \(n)") }
                    previous = n
                } while !writersDone.isSet
            }
        }
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            for task in 0..<Self.tasks {
                tasks.addTask {
                    for i in 1...Self.commitsEach {
                        try Self.commit(i, writer: "task\(task)", in: store)
                        _ = Self.checkSnapshot(of: store, failures: failures, who: "task \(task)")
                        await Task.yield()
                    }
                }
            }
            tasks.addTask {
                while !writersDone.isSet {
                    _ = Self.checkSnapshot(of: store, failures: failures, who: "reader task")
                    await Task.yield()
                }
            }
            for _ in 0..<Self.tasks { _ = try await tasks.next() }
            await Self.finished(writerThreads)
            writersDone.set()
            try await tasks.waitForAll()
        }
        await Self.finished(readerThreads)
        #expect(failures.all.isEmpty, "\(failures.all.prefix(5))")

        // No lost update; every writer's own counter complete.
        #expect(try store.value(forKey: "n", of: ref("counter/total")) == .int(Int64(total)))
        let writers = (0..<Self.threads).map { "thread\($0)" } + (0..<Self.tasks).map { "task\($0)" }
        for writer in writers { #expect(try store.value(forKey: "n", of: ref("writer/\(writer)")) == .int(Int64(Self.commitsEach))) }

        // The journal: contiguous, four entries per commit, commit ids increasing from commit to commit.
        let entries = try store.journalEntries()
        #expect(entries.map(\.sequence) == Array(1...UInt64(2 + 4 * total)))
        let commits = entries.map(\.commitID)
        #expect(zip(commits, commits.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(Set(commits).count == 2 + total)
        let totalEntries = entries.filter { $0.ref == ref("counter/total") && $0.keyPath == "n" }
        #expect(totalEntries.map(\.newValue) == (1...total).map { .int(Int64($0)) })

        // Observers: every change of the total once, in commit order, with its old value.
        #expect(totals.all.map(\.sequence) == totalEntries.map { Optional($0.sequence) })
        #expect(totals.all.map(\.commitID) == totalEntries.map { Optional($0.commitID) })
        #expect(totals.all.map(\.oldValue) == (0..<total).map { .int(Int64($0)) })
        #expect(await streamed.value == (1...total).map(Int64.init))
        let kindCommits = writerKinds.all.map(\.commitID)
        #expect(kindCommits == Array(Set(entries.filter { $0.ref.kind == "writer" }.map(\.commitID))).sorted())
        #expect(writerKinds.all.reduce(0) { $0 + $1.inserted.count + $1.modified.count } == total)
        withExtendedLifetime(tokens) {}

        let report = try store.verify()
        #expect(report.isHealthy && report.replayChecked, "\(report.findings)")
    }
}
