import Foundation
import Testing
import TestSupport
@testable import KVStore
import LMDB

/// Inserted records passed through from a source's journal to a replica as their bytes: kept
/// encoded only when they decode as the generic decoder reads them, stored and journaled as they
/// are, and decoded for whoever asks (observers, modification times).
@Suite struct JournalPassThroughTests {
    private func kept(_ bytes: [UInt8]) throws -> JournalEntry? {
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(ValueDecodingError) in try JournalCodec.decodeDirectly(buffer, keepingRecordsEncoded: true) }
        }.get()
    }

    @Test func anInsertedRecordIsKeptAsItsStoredBytesAndReadsAsTheGenericDecoderReadsIt() throws {
        let t = try TemporaryStore()
        try fillWithEveryChange(t.store)
        try t.store.insert(["list": [1, ["deep": [.null, "x"]], .bytes(Data([9]))], "ref": .reference(ref("person/ada"))], as: ref("thing/1"))
        var insertions = 0
        for entry in try t.store.journalEntries() {
            let bytes = JournalCodec.encode(entry)
            let read = try #require(try kept(bytes))
            #expect(read == entry)
            #expect(JournalCodec.encode(read) == bytes)  // journaled again byte for byte
            if entry.change == .recordInserted {
                insertions += 1
                let record = try #require(read.encodedNewRecord)
                #expect(try record == RecordCodec.encode(#require(entry.newValue?.dictionaryValue)))
            } else {
                #expect(read.encodedNewRecord == nil)
            }
        }
        #expect(insertions == 4)
        // Without asking, nothing is kept encoded.
        let entry = try #require(try t.store.journalEntries(from: 1, limit: 1).first)
        let plain = try JournalCodec.encode(entry).withUnsafeBytes { try JournalCodec.decode($0, sequence: 1) }
        #expect(plain.encodedNewRecord == nil && plain == entry)
    }

    /// What the cheap check cannot vouch for is decoded as before: keys that are not ASCII (two
    /// byte strings can spell one key), a top-level null (a record stores none), a number not in
    /// its shortest form (the record would not be written the way the encoder writes it).
    @Test func recordsTheCheckCannotVouchForAreDecoded() throws {
        let cases: [[String: Value]] = [["café": 1], ["n": .null, "m": 2], ["nested": ["é": 1]]]
        for values in cases {
            let entry = JournalEntry(sequence: 1, commitID: 1, timestamp: Date(timeIntervalSince1970: 1), ref: ref("person/ada"),
                                     keyPath: nil, change: .recordInserted, oldValue: nil, newValue: .dictionary(values))
            let read = try #require(try kept(JournalCodec.encode(entry)))
            #expect(read.encodedNewRecord == nil, "\(values)")
            #expect(read == entry)
        }
        // ["n": 1] with the int written in two bytes (0x82 0x00) instead of one (0x02).
        var record = RecordCodec.encode(["n": 1])   // version, count, offsets 0 and 4, key length, "n", tag, 0x02
        #expect(record.last == 0x02 && record[6] == 4)
        record[record.count - 1] = 0x82
        record.append(0x00)
        record[6] = 5
        #expect(try RecordCodec.decode(record) == ["n": 1])
        let tagged = [ValueCodec.Tag.dictionary] + record.dropFirst()
        let passed = tagged.withUnsafeBytes { buffer in
            var reader = ByteReader(buffer)
            return (RecordCodec.passThroughRecord(&reader), reader.offset)
        }
        #expect(passed.0 == nil && passed.1 == 0)
        let shortest = ([ValueCodec.Tag.dictionary] + RecordCodec.encode(["n": 1]).dropFirst()).withUnsafeBytes { buffer in
            var reader = ByteReader(buffer)
            return RecordCodec.passThroughRecord(&reader)
        }
        #expect(shortest == RecordCodec.encode(["n": 1]))
    }

    /// Damaged insertions (cut short, a byte changed): what is kept encoded decodes as a record
    /// and reads as the generic decoder reads the entry; nothing the generic decoder refuses is
    /// read, nothing it reads is refused. A corrupt entry never becomes a corrupt record.
    @Test func damagedInsertionsAreNeverKeptAsCorruptRecords() throws {
        let entries: [JournalEntry] = [
            ["name": "Ada", "born": 1815, "height": 1.65, "alive": false, "photo": .bytes(Data([0, 1, 255])),
             "seen": .date(Date(timeIntervalSince1970: 5)), "friend": .reference(ref("person/bob")),
             "tags": ["poet", 7], "address": ["city": "Lond\u{f6}n", "geo": ["lat": 51.5]], "empty": [:], "none": []],
        ].map {
            JournalEntry(sequence: 1, commitID: 1, timestamp: Date(timeIntervalSince1970: 1), origin: JournalOrigin(storeID: UUID(), sequence: 9),
                         ref: ref("person/ada"), keyPath: nil, change: .recordInserted, oldValue: nil, newValue: .dictionary($0))
        }
        var keptEncoded = 0
        for entry in entries {
            let bytes = JournalCodec.encode(entry)
            #expect(try kept(bytes)?.encodedNewRecord != nil)
            for bytes in damagedVersions(of: bytes) {
                let direct = Result { try kept(bytes) }
                let generic = Result { try JournalEntry(dictionary: RecordCodec.decode(bytes)) }
                switch (direct, generic) {
                case (.success(let entry?), .success(let expected)):
                    #expect(entry == expected, "\(bytes)")
                    if let record = entry.encodedNewRecord {
                        keptEncoded += 1
                        #expect(try RecordCodec.decode(record) == expected.newValue?.dictionaryValue, "\(bytes)")
                    }
                case (.success(.some), .failure): Issue.record("read directly, refused by the generic decoder: \(bytes)")
                case (.failure, .success): Issue.record("refused directly, read by the generic decoder: \(bytes)")
                default: break
                }
            }
        }
        #expect(keptEncoded > 0)
    }
}

/// Replicating with inserted records passed through.
@Suite struct ReplicatorPassThroughTests {
    @Test func passedThroughRecordsAreTheSourcesBytesObservedStampedAndVerified() throws {
        var note = try Kind("note")
        note.tracksModificationTimes = true
        var options = Store.Options.testing
        options.kinds = [note]
        let source = try TemporaryStore(options: options)
        let directory = try TemporaryDirectory()
        try fillWithEveryChange(source.store)
        try Replicator(source: source.store, replicaPath: directory.path("replica"), options: {
            var o = Replicator.Options(); o.replicaOptions = options; return o
        }()).run()
        let replica = try Store(path: directory.path("replica"), options: options)
        let seen = Received<Value?>()
        let token = try replica.observe(ref("note/7"), keyPath: "title") { seen.add($0.newValue) }
        let kinds = Received<[String]>()
        let kindToken = try replica.observeKind("note") { kinds.add($0.inserted.sorted()) }
        try source.store.insert(["title": "seven", "tags": ["x", ["y": 1]]], as: ref("note/7"))
        try source.store.insert(["title": "eight"], as: ref("note/8"))
        var replicatorOptions = Replicator.Options()
        replicatorOptions.replicaOptions = options
        try Replicator(source: source.store, replicaPath: directory.path("replica"), options: replicatorOptions).run()
        #expect(seen.all == ["seven"])
        #expect(kinds.all == [["7"], ["8"]])
        token.cancel()
        kindToken.cancel()
        for record in ["note/7", "note/8", "person/ada", "person/bob"].map(ref) {
            let bytes = { (store: Store) in
                try store.read { try $0.transaction.value(forKey: StoreLayout.recordKey(record), in: store.databases.records) }
            }
            #expect(try bytes(replica) == bytes(source.store))
        }
        #expect(try replica.read { try $0.modificationTimes(of: ref("note/7")) }.keys.sorted() == ["tags", "title"])
        let inserted = try #require(try replica.journalEntries().last)
        #expect(inserted.newValue == ["title": "eight"] && inserted.origin?.storeID == source.store.id)
        #expect(try allRecords(replica) == allRecords(source.store))
        #expect(try replica.verify().isHealthy)
    }

    /// A source entry whose record is corrupt (a string that is not UTF-8) stops the replicator
    /// with one error naming the entry, before anything of its batch is written.
    @Test func aCorruptRecordInTheSourceJournalIsRefusedBeforeAnythingIsWritten() throws {
        let source = try TemporaryStore()
        let directory = try TemporaryDirectory()
        try source.store.insert(["name": "Ada"], as: ref("person/ada"))
        try source.store.insert(["name": "Bob"], as: ref("person/bob"))
        try source.store.insert(["name": "Cy"], as: ref("person/cy"))
        let entry = try #require(try source.store.journalEntries(from: 2, limit: 1).first)
        var bytes = JournalCodec.encode(entry)
        let bob = try #require(bytes.firstRange(of: Array("Bob".utf8)))
        bytes[bob.lowerBound] = 0xFF
        try source.store.environment.write { txn in
            try txn.put(StoreLayout.sequenceKey(2), bytes, in: source.store.databases.journal)
        }
        let replicator = Replicator(source: source.store, replicaPath: directory.path("replica"))
        #expect(performing: { try replicator.run() }, throws: {
            ($0 as? StoreError)?.message.hasPrefix("journal entry 2 is corrupt: invalid UTF-8 in string") == true
        })
        let replica = try Store(path: directory.path("replica"))
        #expect(try replica.read { try $0.count(ofKind: "person") } == 0)
        #expect(try replica.read { try $0.replicationCheckpoint(for: source.store.id) } == 0)
    }
}
