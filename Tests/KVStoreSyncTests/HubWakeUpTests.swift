import Foundation
import KVStoreSync
import Testing
import TestSupport

extension HubTests {
    @Suite struct WakeUpTests {
        /// An upload that stores something wakes the listeners, naming its store; one that stores
        /// nothing new (a retry) wakes nobody.
        @Test func uploadsWithNewChangesWakeFollowers() async throws {
            let database = try await HubDatabase.make()
            let (a, b) = (UUID(), UUID())
            let writer = try await database.connect()
            let origins = try await withDeadline(seconds: 20) {
                try await database.withClient { follower in
                    try await follower.withWakeUps { wakeUps in
                        var iterator = wakeUps.makeAsyncIterator()
                        try await writer.upload(try sampleChanges(2, from: a), from: a)
                        let first = try await iterator.next()
                        try await writer.upload(try sampleChanges(2, from: a), from: a)  // nothing new
                        try await writer.upload(try sampleChanges(1, from: b), from: b)
                        return [first?.origin, try await iterator.next()?.origin]
                    }
                }
            }
            await writer.close()
            #expect(origins == [a, b])
        }

        /// The wake-ups end with an error when the connection goes.
        @Test func wakeUpsEndWhenTheConnectionCloses() async throws {
            let database = try await HubDatabase.make()
            let follower = try await database.connect()
            let ended = try await withDeadline(seconds: 20) {
                try await follower.withWakeUps { wakeUps in
                    var iterator = wakeUps.makeAsyncIterator()
                    await follower.close()
                    do {
                        return try await iterator.next() == nil ? "ended" : "woke"
                    } catch let error as SyncError {
                        return error.isTransient ? "ended" : "\(error)"
                    }
                }
            }
            #expect(ended == "ended")
        }
    }
}

/// Runs `body`, cancelled after `seconds`: a broken test fails instead of hanging (waiting for
/// a wake-up, cancelled, gets nil).
private func withDeadline<T: Sendable>(seconds: Int, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    let work = Task { try await body() }
    let timer = Task {
        try await Task.sleep(for: .seconds(seconds))
        work.cancel()
    }
    defer { timer.cancel() }
    return try await work.value
}
