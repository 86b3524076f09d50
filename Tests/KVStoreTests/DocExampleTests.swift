import Foundation
import Synchronization
import Testing
import TestSupport
import KVStore   // not @testable: the examples use the public API only

/// The ```swift examples of the `///` comments of observation, the journal's consumers, followers
/// and streams, replication, verification and statistics — each run against a
/// temporary store, adapted as little as possible, with `#expect`s where an example shows a result
/// in a comment. If an example here stops compiling, fix the doc comment it came from too.
@Suite struct DocExampleTests {
    let t: TemporaryStore
    var store: Store { t.store }
    let ada = try! RecordRef("person/ada")

    init() throws {
        t = try TemporaryStore()
        try t.store.insert(["name": "Ada", "address": ["city": "London"]], as: ada)
    }

    /// A Sendable class with settable properties, standing in for a view or label.
    final class Label: Sendable {
        private let storage = Mutex(("", ""))
        var text: String {
            get { storage.withLock { $0.0 } }
            set { storage.withLock { $0.0 = newValue } }
        }
        var heading: String {
            get { storage.withLock { $0.1 } }
            set { storage.withLock { $0.1 = newValue } }
        }
    }

    // MARK: Observation

    /// Store+Observe.swift, `observe(_:keyPath:options:_:)`.
    @Test func observe() throws {
        let invoice = try store.insert(["customer": .reference(ada)], kind: "invoice")
        let printed = Mutex<[String]>([])
        let token = try store.observe(invoice, keyPath: "customer.name", options: [.initial, .old, .new]) { change in
            printed.withLock { $0.append("\(change.oldValue?.stringValue ?? "none") → \(change.newValue?.stringValue ?? "none")") }
        }
        try store.setValue("Ada Lovelace", forKey: "name", of: ada)   // prints before returning
        #expect(printed.withLock { $0 } == ["none → Ada", "Ada → Ada Lovelace"])
        token.cancel()
    }

    /// Store+Observe.swift, `observeKind(_:_:)`, and KindChanges.swift.
    @Test func observeKind() throws {
        let printed = Mutex<[[String]]>([])
        let token = try store.observeKind("invoice") { changes in
            if !changes.inserted.isEmpty { printed.withLock { $0.append(changes.inserted.sorted()) } }
        }
        try store.insert(["amount": 12], as: RecordRef("invoice/1"))
        let persons = Mutex<[[[String]]]>([])
        let personToken = try store.observeKind("person") { changes in
            persons.withLock { $0.append([changes.inserted.sorted(), changes.modified.sorted(), changes.deleted.sorted()]) }
        }
        try store.setValue("Ada Lovelace", forKey: "name", of: ada)
        #expect(printed.withLock { $0 } == [["1"]])
        #expect(persons.withLock { $0 } == [[[], ["ada"], []]])
        _ = (token, personToken)
    }

    /// ObservationOptions.swift, ObservationToken.swift and ObservedChange.swift.
    @Test func observationOptionsAndToken() throws {
        let printed = Mutex<[String]>([])
        let token = try store.observe(ada, keyPath: "name", options: [.initial, .old, .new]) { change in
            printed.withLock { $0.append("\(change.oldValue?.stringValue ?? "none") → \(change.newValue?.stringValue ?? "none")") }
        }
        let plain = try store.observe(ada, keyPath: "name") { change in
            printed.withLock { $0.append(change.newValue?.stringValue ?? "none") }
        }
        try store.setValue("Augusta", forKey: "name", of: ada)
        token.cancel()
        plain.cancel()   // or let it go
        try store.setValue("Ada", forKey: "name", of: ada)
        #expect(printed.withLock { $0 } == ["none → Ada", "Ada → Augusta", "Augusta"])

        let invoice = try store.insert(["customer": .reference(ada)], kind: "invoice")
        let kinds = Mutex<[String]>([])
        let customer = try store.observe(invoice, keyPath: "customer.name", options: [.old, .new]) { change in
            kinds.withLock { $0.append("\(change.kind) \(change.oldValue?.stringValue ?? "none") \(change.newValue?.stringValue ?? "none") \(change.commitID ?? 0 > 0)") }
        }
        try store.setValue("Ada L.", forKey: "name", of: ada)
        #expect(kinds.withLock { $0 } == ["setting Ada Ada L. true"])
        _ = customer
    }

    /// ObservedChanges.swift: the type's example and `changes(of:keyPath:options:)`.
    @Test func changesAsAnAsyncSequence() async throws {
        let names = try store.changes(of: ada, keyPath: "name")
        let task = Task {
            var seen: [Value?] = []
            for await change in names {
                seen.append(change.newValue)
                if seen.count == 2 { break }
            }
            return seen
        }
        try store.setValue("Augusta", forKey: "name", of: ada)
        try store.setValue("Ada", forKey: "name", of: ada)
        #expect(await task.value == ["Augusta", "Ada"])

        let cities = try store.changes(of: ada, keyPath: "address.city", options: [.initial, .new])
        let city = Task {
            var seen: [Value?] = []
            for await change in cities {
                seen.append(change.newValue)
                if change.newValue == "Paris" { break }
            }
            return seen
        }
        try store.setValue("Paris", forKeyPath: "address.city", of: ada)
        #expect(await city.value == ["London", "Paris"])
    }

    /// Binding.swift: `BindingSource` and `RecordBinding`.
    @Test func bindings() throws {
        let label = Label()
        let binding = try store.from(ada, "name")
            .map { $0?.stringValue ?? "nobody" }
            .to(label, \.text)                        // sets label.text now, and on every change
        #expect(label.text == "Ada")
        let invoice = try store.insert(["amount": 12], kind: "invoice")
        let amounts = Mutex<[String]>([])
        let token = try store.from(invoice, "amount").to { amount in amounts.withLock { $0.append(amount?.description ?? "none") } }
        try store.setValue("Augusta", forKey: "name", of: ada)
        try store.setValue(13, forKey: "amount", of: invoice)
        #expect(label.text == "Augusta")
        #expect(amounts.withLock { $0 } == ["12", "13"])
        binding.cancel()
        token.cancel()

        let other = Label()
        let second = try store.from(ada, "name").map { $0?.stringValue ?? "" }.to(other, \.text)
        second.cancel()   // stop before `other` goes away
        try store.setValue("Ada", forKey: "name", of: ada)
        #expect(other.text == "Augusta")
        #expect(!second.isActive)
    }

    /// Property.swift.
    @Test func property() {
        let view = Label()
        let title = Property("untitled")
        title.subscribe(view) { view, title in view.heading = title }   // runs now, and on each change
        #expect(view.heading == "untitled")
        title.value = "Invoices"
        #expect(view.heading == "Invoices")
    }

    /// Kind.swift, `keyPathsAffecting`.
    @Test func dependentKeys() throws {
        var person = try Kind("person")
        person.keyPathsAffecting["fullName"] = ["first", "last"]
        person.keyPathsAffecting["label"] = ["fullName", "employer.name"]
        #expect(person.keyPathsAffecting["label"] == ["fullName", "employer.name"])
    }

    // MARK: Durable consumers, following, truncation

    /// JournalConsumer.swift: the type's example, `registerConsumer(named:startingAfter:)` and `consumers()`.
    @Test func consumers() throws {
        var indexed: [UInt64] = []
        func index(_ entry: JournalEntry) { indexed.append(entry.sequence) }

        _ = try store.registerConsumer(named: "indexer", startingAfter: 0)  // from the start
        // … later, or in another process:
        let consumer = try store.consumer(named: "indexer")
        let batch = try consumer.entries(limit: 500)
        for entry in batch { index(entry) }
        if let last = batch.last { try consumer.commit(through: last.sequence) }
        #expect(indexed == [1])
        #expect(try consumer.cursor() == 1)

        let mailer = try store.registerConsumer(named: "mailer")      // new entries only
        #expect(try mailer.entries().isEmpty)
        try store.setValue("Augusta", forKey: "name", of: ada)

        var listed: [String] = []
        for consumer in try store.consumers() { listed.append("\(consumer.name) \(consumer.cursor) \(consumer.lag)") }
        #expect(listed == ["indexer 1 1", "mailer 1 1"])
    }

    /// JournalRetentionError.swift.
    @Test func retentionError() throws {
        let indexer = try store.registerConsumer(named: "indexer", startingAfter: 0)
        try store.setValue("Augusta", forKey: "name", of: ada)
        try store.truncateJournal(before: 3, force: true)
        var indexed: [JournalEntry] = [], expired = false
        func index(_ entry: JournalEntry) { indexed.append(entry) }
        do {
            for entry in try store.consumer(named: "indexer").entries() { index(entry) }
        } catch let error as JournalRetentionError {
            if error.code == .cursorExpired { expired = true /* truncated past the cursor: rebuild, then reset it */ }
        }
        #expect(expired && indexed.isEmpty)
        try indexer.reset(to: 2)
    }

    /// ReadTransaction+JournalCursors.swift, `journalEntries(after:limit:)`.
    @Test func entriesAfterACursor() throws {
        for n in 1...45 { try store.setValue(.int(Int64(n)), forKey: "n", of: ada) }
        let new = try store.read { try $0.journalEntries(after: 41, limit: 100) }   // 42, 43, …
        #expect(new.map(\.sequence) == [42, 43, 44, 45, 46])
    }

    /// Store+JournalTruncation.swift.
    @Test func truncation() throws {
        try store.write { txn in
            for n in 1...1_200 { try txn.setValue(.int(Int64(n)), forKey: "n", of: ada) }
        }
        try store.registerConsumer(named: "lagging", startingAfter: 10)
        try store.truncateJournal(before: 11)                 // the consumer needs 11 and later
        #expect(throws: JournalRetentionError.self) { try store.truncateJournal(before: 1_000) }
        try store.truncateJournal(before: 1_000, force: true) // even past lagging consumers
        #expect(try store.read { try $0.firstSequence() } == 1_000)   // keeps 1000 and later
    }

    /// JournalFollower.swift.
    @Test func follower() throws {
        let store = self.store
        let seen = Mutex<[String]>([])
        let follower = JournalFollower(store: store, after: try store.read { try $0.lastSequence() })
        let thread = Thread {
            try? follower.run { batch in
                for entry in batch { seen.withLock { $0.append("\(entry.sequence) \(entry.ref) \(entry.keyPath ?? "-")") } }
            }
        }
        thread.start()
        try store.setValue("Augusta", forKey: "name", of: ada)
        #expect(waitUntil { !seen.withLock { $0 }.isEmpty })
        // … later
        follower.stop()
        #expect(seen.withLock { $0 } == ["2 person/ada name"])
    }

    /// JournalUpdates.swift.
    @Test func journalUpdates() async throws {
        try store.setValue("Augusta", forKey: "name", of: ada)
        let store = self.store
        let seen = Received<String>()
        let task = Task {
            for try await entry in store.journalUpdates(after: 0) {
                seen.add("\(entry.sequence) \(entry.change)")
            }
        }
        while seen.count < 2 { try await Task.sleep(for: .milliseconds(2)) }  // (async: no blocking wait)
        // … later
        task.cancel()
        try await task.value
        #expect(seen.all == ["1 recordInserted", "2 setting"])
    }

    // MARK: Streams, replication, replay

    /// Store+JournalExport.swift and Store+JournalApply.swift.
    @Test func exportAndApply() throws {
        let replica = try TemporaryStore()
        var bytes: [UInt8] = []
        try store.exportJournal(since: 1) { bytes += $0 }
        try replica.store.applyJournal(JournalStreamReader(bytes: bytes))
        #expect(try replica.store.value(forKey: "name", of: ada) == "Ada")

        let file = t.path + "/stream"
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let fd = open(file, O_RDONLY | O_CLOEXEC)
        defer { close(fd) }
        let other = try TemporaryStore()
        let reader = try JournalStreamReader(fileDescriptor: fd)
        let summary = try other.store.applyJournal(reader)     // summary.applied, .skipped, .checkpoint
        #expect((summary.applied, summary.skipped, summary.checkpoint) == (1, 0, 1))

        let sourceID = store.id
        let applied = try other.store.read { try $0.replicationCheckpoint(for: sourceID) }
        #expect(applied == 1)
    }

    /// JournalStreamReader.swift and JournalStreamWriter.swift.
    @Test func streamReaderAndWriter() throws {
        let entries = try store.read { try $0.journalEntries() }
        let header = JournalStreamHeader(storeID: store.id, firstSequence: 1, lastSequence: 1)
        let file = FileHandle(forWritingAtPath: "/dev/null")!
        var written: [UInt8] = []
        let writer = try JournalStreamWriter(header: header) { bytes in try file.write(contentsOf: bytes); written += bytes }
        for entry in entries { try writer.append(entry) }
        try writer.finish()

        let reader = try JournalStreamReader(bytes: written)
        #expect(reader.header.storeID == store.id)
        var read: [JournalEntry] = []
        while let commit = try reader.nextCommit() {               // nil after the end frame
            for entry in commit { read.append(entry) }
        }
        #expect(read == entries)
    }

    /// Store+JournalExportFollowing.swift.
    @Test func followExport() throws {
        let file = t.path + "/stream"
        #expect(FileManager.default.createFile(atPath: file, contents: nil))
        let output = try #require(FileHandle(forWritingAtPath: file))
        let done = DispatchSemaphore(value: 0)
        let store = self.store

        let running = Mutex<JournalFollower?>(nil)      // to stop the export from another thread
        Thread {
            try? store.exportJournal(since: 1, following: JournalFollowOptions(), onStart: { follower in
                running.withLock { $0 = follower }
            }) { bytes in try output.write(contentsOf: bytes) }   // output: a FileHandle
            done.signal()
        }.start()
        try store.setValue("Augusta", forKey: "name", of: ada)
        #expect(waitUntil { running.withLock { $0 } != nil })
        #expect(waitUntil { Self.wholeCommits(in: file) == 2 })
        // … later
        running.withLock { $0?.stop() }                  // the stream ends with its end frame
        #expect(done.wait(timeout: .now() + 60) == .success)
        try output.close()

        let replica = try TemporaryStore()
        try replica.store.applyJournal(JournalStreamReader(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: file)))))
        #expect(try replica.store.value(forKey: "name", of: ada) == "Augusta")
    }

    /// The whole commits a stream written so far holds.
    private static func wholeCommits(in file: String) -> Int {
        guard let bytes = FileManager.default.contents(atPath: file),
              let reader = try? JournalStreamReader(bytes: Array(bytes)) else { return 0 }
        var commits = 0
        while (try? reader.nextCommit()) != nil { commits += 1 }
        return commits
    }

    /// JournalStreamError and JournalApplyError.
    @Test func streamAndApplyErrors() throws {
        var printed = ""
        do { _ = try JournalStreamReader(bytes: Array("not a stream".utf8)) } catch { printed = "\(error)" }
        #expect(printed == "journal stream: not a kvstore journal stream (its first bytes are not the stream's magic bytes)")

        try store.setValue("Augusta", forKey: "name", of: ada)
        var bytes: [UInt8] = []
        try store.exportJournal(since: 2) { bytes += $0 }
        let temporary = try TemporaryStore()
        let replica = temporary.store
        let reader = try JournalStreamReader(bytes: bytes)
        var gap = false
        do {
            try replica.applyJournal(reader)
        } catch let error as JournalApplyError {
            if error.code == .gap { gap = true /* export the source's journal after the replica's checkpoint, apply that */ }
        }
        #expect(gap)
    }

    /// Store+Replay.swift.
    @Test func replay() throws {
        for n in 1...50 { try store.setValue(.int(Int64(n)), forKey: "n", of: ada) }
        let copy = try TemporaryStore()
        try store.replayJournal(into: copy.store, until: .sequence(42))
        #expect(try copy.store.value(forKey: "n", of: ada) == 41)
    }

    // MARK: Verification, statistics, templates

    /// Store+Verify.swift and Store+Difference.swift.
    @Test func verifyAndDifferences() throws {
        let report = try store.verify()
        var printed: [String] = []
        if !report.isHealthy { report.findings.forEach { printed.append($0) } }
        #expect(printed.isEmpty)
        #expect(report.summary == "healthy: 1 record of 1 kind; journal 1…1 (1 entry); replay matches the records")

        let b = try TemporaryStore()
        try b.store.insert(["name": "Augusta", "address": ["city": "London"]], as: ada)
        let a = store
        var differences: [RecordDifference] = []
        try a.forEachDifference(from: b.store) { differences.append($0); return true }
        #expect(differences == [.valueDiffers(ada, key: "name", first: "Ada", second: "Augusta")])
    }

    /// StoreStatistics.swift.
    @Test func statistics() throws {
        for n in 1...3 { try store.insert(["amount": .int(Int64(n))], kind: "invoice") }
        try store.insert(["name": "Charles"], kind: "person")
        for n in 1...7 { try store.setValue(.int(Int64(n)), forKey: "n", of: ada) }
        let stats = try store.statistics()
        #expect(stats.kinds.map { "\($0.kind) \($0.count)" } == ["invoice 3", "person 2"])
        #expect(stats.journal.last == 12 && stats.fileSize > 0)
    }
}
