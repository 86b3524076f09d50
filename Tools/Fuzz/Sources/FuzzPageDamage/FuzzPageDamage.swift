import Foundation
import FuzzSupport
import KVStore
import LMDB

// A store's data file with damage the fuzzer chooses (the input is the whole `data.mdb`; the seeds
// are small valid stores, one with trees of depth 2, an overflow value and a free-page list).
// Checks: the page checker (`PageCheckReport.checkDataFile`) never traps; opening the store and
// `verify` never crash, whatever the damage (opening checks the pages LMDB reads to open it, and
// verify lets LMDB read only the trees whose pages it found sound); and where verify found no
// damaged page, LMDB also writes to the store without crashing (a write reads the free-page list
// and the paths it changes). Failures are errors with one line.

@_cdecl("FuzzPageDamage_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, seeds: { try [emptyStore(), sampleStore(), deepStore()] }, callback: fuzzOne)
}

/// The directory each input is written to as a store (one per process).
private let directory = NSTemporaryDirectory() + "kvstore-fuzz-pages-\(getpid())"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = inputBytes(data, count)
    try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    try? FileManager.default.removeItem(atPath: directory + "/lock.mdb")
    guard (try? Data(bytes).write(to: URL(fileURLWithPath: directory + "/data.mdb"))) != nil else { return 0 }
    let pages = try? PageCheckReport.checkDataFile(atPath: directory + "/data.mdb")
    pages?.findings.forEach { requireOneLine($0.description, from: "the page checker") }

    var options = Store.Options()
    options.readOnly = true
    options.createIfMissing = false
    options.mapSize = 1 << 20
    let report: VerificationReport
    do {
        report = try Store(path: directory, options: options).verify()
    } catch {
        requireOneLine("\(error)", from: "opening and verifying a damaged store")
        return 0
    }
    guard report.damagedTrees.isEmpty else { return 0 }
    options.readOnly = false
    options.durability = .noSync
    do {
        try Store(path: directory, options: options).insert(["note": "written after the check"], as: RecordRef("fuzz/new"))
    } catch {
        requireOneLine("\(error)", from: "writing to a store whose pages checked clean")
    }
    return 0
}

/// The data file of a store made by `fill`.
private func storeFile(_ fill: (Store) throws -> Void) throws -> [UInt8] {
    let scratch = try ScratchStore()
    defer { scratch.remove() }
    try fill(scratch.store)
    return Array(try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/data.mdb")))
}

private func emptyStore() throws -> [UInt8] { try storeFile { _ in } }

private func sampleStore() throws -> [UInt8] {
    let scratch = try ScratchStore.withSampleRecords()
    defer { scratch.remove() }
    return Array(try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/data.mdb")))
}

/// Records and journal of depth 2, a value in overflow pages, and pages freed by a second commit.
private func deepStore() throws -> [UInt8] {
    try storeFile { store in
        try store.write { txn in
            for index in 0..<90 {
                try txn.insert(["name": .string(String(repeating: "n", count: 80)), "n": .int(Int64(index))],
                               as: RecordRef(kind: "person", id: String(format: "p%03d", index)))
            }
            try txn.insert(["blob": .bytes(Data(repeating: 1, count: 6000))], as: RecordRef(kind: "file", id: "big"))
        }
        try store.write { txn in
            try txn.setValue(.int(-1), forKey: "n", of: RecordRef(kind: "person", id: "p007"))
        }
    }
}
