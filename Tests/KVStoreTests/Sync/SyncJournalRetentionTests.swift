import Foundation
import Testing
import TestSupport
@_spi(Sync) @testable import KVStore

/// The journal and sync: entries the hub has not committed are the only copy of those changes,
/// and entries from before the store synced hold nothing to upload.
@Suite struct SyncJournalRetentionTests {
    @Test func truncatingChangesNotUploadedIsRefusedUnlessForced() throws {
        let t = try TemporaryStore.syncing()
        try t.store.insert(["n": 1], as: ref("note/1"))
        try t.store.insert(["n": 2], as: ref("note/2"))
        let last = try t.store.lastSequence
        #expect(performing: { try t.store.truncateJournal(before: last + 1) }, throws: {
            ($0 as? JournalRetentionError)?.code == .truncationBlocked
                && "\($0)".contains("would drop changes the sync hub does not have yet: uploaded through 0 of 2")
        })
        #expect(try t.store.journalEntries().count == 2)
        // Once the hub has them, they may go.
        try t.store.write { try $0.setSyncCursors(SyncCursors(hub: "hub", uploadedThrough: 1, download: [])) }
        #expect(try t.store.truncateJournal(before: 2) == 1)
        #expect(throws: JournalRetentionError.self) { try t.store.truncateJournal(before: last + 1) }
        #expect(try t.store.truncateJournal(before: last + 1, force: true) == 1)
    }

    @Test func uploadsStartAfterTheJournalAsItWasWhenSyncStarted() throws {
        let t = try TemporaryStore()
        try t.store.insert(["n": 1], as: ref("person/1"))
        try t.store.insert(["n": 2], as: ref("person/2"))
        try t.store.truncateJournal(before: try t.store.lastSequence + 1)
        try t.store.write { try $0.setSyncConfiguration(SyncConfiguration(kinds: ["note"])) }
        let start = try t.store.read { try $0.syncUploadStart() }
        #expect(start == 2)
        try t.store.insert(["n": 1], as: ref("note/1"))
        #expect(try t.store.read { try $0.localChanges(after: start) }.changes.map(\.ref) == [ref("note/1")])
        // A change of kinds keeps the start; stopping sync drops it.
        try t.store.write { try $0.setSyncConfiguration(SyncConfiguration(kinds: ["note", "task"])) }
        #expect(try t.store.read { try $0.syncUploadStart() } == 2)
        try t.store.write { try $0.setSyncConfiguration(nil) }
        #expect(try t.store.read { try $0.syncUploadStart() } == 0)
    }
}
