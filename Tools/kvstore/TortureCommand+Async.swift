import Dispatch
import KVStore

extension TortureCommand {
    /// `--in-flight W`: commit I is an async `store.write` inserting `item/R-I` (`{"run": R,
    /// "commit": I}`), W of them in flight at once; `R I` is printed once commit I returned
    /// (acknowledgements may come out of order).
    func commitInFlight(_ store: Store) throws {
        let (name, commits, width) = (name, commits, inFlight)
        let done = DispatchSemaphore(value: 0)
        let outcome = LockedValue<(any Error)?>(nil)
        Task {
            do {
                try await withThrowingTaskGroup(of: Int.self) { group in
                    var next = 1
                    func add() throws {
                        let commit = next
                        let ref = try Input.ref("item/\(name)-\(commit)")
                        group.addTask {
                            try await store.write { txn in
                                try txn.insert(["run": .string(name), "commit": .int(Int64(commit))], as: ref)
                            }
                            return commit
                        }
                        next += 1
                    }
                    while next <= min(width, commits) { try add() }
                    while let commit = try await group.next() {
                        try Self.acknowledge(commit, of: name)
                        if next <= commits { try add() }
                    }
                }
            } catch {
                outcome.withLock { $0 = error }
            }
            done.signal()
        }
        done.wait()
        if let error = outcome.withLock({ $0 }) { throw error }
    }
}
