import Foundation
import KVStore

/// A store in a fresh temporary directory (no syncs: a fuzz run needs no durability), removed by
/// ``remove()``.
public final class ScratchStore {
    public let path: String
    public let store: Store

    public init() throws {
        path = NSTemporaryDirectory() + "kvstore-fuzz-" + UUID().uuidString
        var options = Store.Options()
        options.durability = .noSync
        options.mapSize = 1 << 20
        store = try Store(path: path, options: options)
    }

    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// A store holding ``Samples/records``' second record as `person/ada` (with `friend` referring
    /// to `person/bob`), `person/bob`, and `invoice/1` with lines: what key paths and templates read.
    public static func withSampleRecords() throws -> ScratchStore {
        let scratch = try ScratchStore()
        try scratch.store.write { txn in
            var ada = Samples.records[1]
            ada["friend"] = .reference(Samples.ref("person/bob"))
            ada["scores"] = [1, 2.5, 3, .null, "x"]
            try txn.insert(ada, as: Samples.ref("person/ada"))
            try txn.insert(["name": "Bob", "friend": .reference(Samples.ref("person/ada")), "born": 1900], as: Samples.ref("person/bob"))
            try txn.insert(Samples.records[5], as: Samples.ref("invoice/1"))
        }
        return scratch
    }

    /// The journal stream of a store where a few commits of every change kind were made: record
    /// inserts, sets, key-path sets, array insertion/removal/replacement, removals, a delete, and
    /// a kind declared then changed.
    public static func sampleStream(since: UInt64 = 1) throws -> [UInt8] {
        let scratch = try withSampleRecords()
        defer { scratch.remove() }
        var invoice = try Kind("invoice")
        invoice.schemaVersion = 1
        try scratch.store.register(invoice)
        invoice.indexes = [try KindIndex(["amount"])]
        try scratch.store.register(invoice)
        let ada = Samples.ref("person/ada")
        try scratch.store.write { txn in
            try txn.setValue("Augusta Ada", forKey: "name", of: ada)
            try txn.setValue("Paris", forKeyPath: "address.city", of: ada)
        }
        try scratch.store.write { txn in
            let tags = txn.mutableArray(forKey: "tags", of: ada)
            try tags.insert("engines", at: 1)
            try tags.remove(at: 0)
            try tags.replace(at: 0, with: .date(Date(timeIntervalSinceReferenceDate: 12.5)))
        }
        try scratch.store.write { txn in
            try txn.removeValue(forKey: "born", of: ada)
            try txn.delete(Samples.ref("invoice/1"))
            try txn.setValue(.bytes(Data([0, 1, 0xFF])), forKey: "blob", of: Samples.ref("person/bob"))
        }
        var bytes: [UInt8] = []
        _ = try scratch.store.exportJournal(since: since) { bytes += $0 }
        return bytes
    }
}
