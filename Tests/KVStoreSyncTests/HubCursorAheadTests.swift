import Foundation
import KVStoreSync
import Testing
import TestSupport

extension HubTests {
    @Suite struct CursorAheadTests {
        /// A cursor past every transaction the hub has run comes from another server (the hub was
        /// restored from a dump into a new cluster, or the store was pointed at another hub): read
        /// on from it and every change the hub takes from now on sits below it, skipped forever.
        @Test func aCursorAheadOfTheHubIsRefused() async throws {
            let database = try await HubDatabase.make()
            let (writer, reader) = (UUID(), UUID())
            let ahead = HubCursor(transaction: 1 << 40, id: 7)
            let error = try await database.withClient { hub in
                try await hub.upload(try sampleChanges(2, from: writer), from: writer)
                return await #expect(throws: SyncError.self) { try await hub.download(after: ahead, excluding: reader) }
            }
            #expect(error?.code == .cursorAhead)
            let message = try #require(error?.message)
            #expect(message.hasPrefix("the download cursor \(ahead) is ahead of the hub's transactions (the oldest still running is "))
            #expect(message.hasSuffix("): the hub was restored or replaced; download again from the start"))
        }
    }
}
