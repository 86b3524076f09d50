import Foundation
import KVStore

// GroupCommitBench writers THREADS SECONDS DURABILITY on|off
//     THREADS threads each commit one small change per write for SECONDS; prints commits/s.
// GroupCommitBench single COUNT DURABILITY
//     COUNT small commits from one thread (for callgrind's instruction counts).

func usage() -> Never {
    FileHandle.standardError.write(Data("usage: GroupCommitBench writers THREADS SECONDS full|noMetaSync|noSync on|off\n       GroupCommitBench single COUNT full|noMetaSync|noSync\n".utf8))
    exit(2)
}

/// Commits counted by the writer threads.
final class Counts: @unchecked Sendable {
    private let lock = NSLock()
    private var sum = 0
    func add(_ n: Int) { lock.withLock { sum += n } }
    var total: Int { lock.withLock { sum } }
}

func durability(_ text: String) -> Durability {
    guard let mode = Durability(rawValue: text) else { usage() }
    return mode
}

func temporaryStore(_ options: Store.Options) throws -> (Store, String) {
    let path = NSTemporaryDirectory() + "group-commit-bench-" + UUID().uuidString
    return (try Store(path: path, options: options), path)
}

let arguments = CommandLine.arguments
guard arguments.count >= 4 else { usage() }
var options = Store.Options()
options.durability = durability(arguments[arguments[1] == "single" ? 3 : 4])

switch arguments[1] {
case "single":
    guard let count = Int(arguments[2]) else { usage() }
    let (store, path) = try temporaryStore(options)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let record = try RecordRef(kind: "counter", id: "c")
    try store.insert(["n": 0], as: record)
    for i in 1...count { try store.setValue(.int(Int64(i)), forKey: "n", of: record) }
    print("single: \(count) commits")
case "writers":
    guard arguments.count == 6, let threads = Int(arguments[2]), let seconds = Double(arguments[3]) else { usage() }
    GroupCommitSwitch.set(&options, arguments[5] == "on")
    let (store, path) = try temporaryStore(options)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let records = try (0..<threads).map { try RecordRef(kind: "counter", id: "w\($0)") }
    for record in records { try store.insert(["n": 0], as: record) }
    let counts = Counts()
    let transactionsBefore = try store.statistics().environment.lastTransaction
    let deadline = Date().addingTimeInterval(seconds)
    let start = Date()
    // Threads of their own (concurrentPerform would run only as many at once as there are cores).
    let finished = DispatchSemaphore(value: 0)
    for thread in 0..<threads {
        Thread {
            var n = 0
            while Date() < deadline {
                n += 1
                try! store.setValue(.int(Int64(n)), forKey: "n", of: records[thread])
            }
            counts.add(n)
            finished.signal()
        }.start()
    }
    for _ in 0..<threads { finished.wait() }
    let elapsed = Date().timeIntervalSince(start)
    let total = counts.total
    let transactions = try store.statistics().environment.lastTransaction - transactionsBefore
    let last = try store.read { try $0.lastSequence() }
    precondition(last == UInt64(threads + total), "journal has \(last) entries, expected \(threads + total)")
    print("writers: \(threads) threads, \(options.durability.rawValue), group commit \(arguments[5]): \(total) commits in \(String(format: "%.2f", elapsed)) s = \(Int(Double(total) / elapsed)) commits/s, \(transactions) LMDB transactions (\(String(format: "%.1f", Double(total) / Double(max(transactions, 1)))) writes each)")
default:
    usage()
}
