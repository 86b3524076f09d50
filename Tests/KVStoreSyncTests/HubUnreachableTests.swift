import Foundation
import KVStoreSync
import Testing
import TestSupport

/// A hub that is down, or that accepts connections and never answers: a clear error soon, never
/// a hang.
@Suite(.tags(.network), .skippedByTag) struct HubUnreachableTests {
    @Test func nothingListeningIsNamedByHostAndPort() async throws {
        let port = try LoopbackListener().port  // closed at once: nothing listens there
        let hub = try HubConfiguration(url: "postgres://sync:secret@127.0.0.1:\(port)/app", environment: [:])
        let error = await #expect(throws: SyncError.self) { try await HubClient.connect(hub) }
        #expect(error?.code == .unreachable && error?.isTransient == true)
        #expect(error?.description == "postgres://sync@127.0.0.1:\(port)/app: cannot reach the hub at 127.0.0.1:\(port): connection refused")
    }

    /// The configured time-out's error; the time limit only guards against a hang (a loaded
    /// machine may take several seconds to fire a 1 s timer).
    @Test(.timeLimit(.minutes(1))) func aServerThatNeverAnswersTimesOut() async throws {
        let silent = try LoopbackListener()
        let hub = try HubConfiguration(url: "postgres://sync:secret@127.0.0.1:\(silent.port)/app?connect_timeout=1", environment: [:])
        let error = await #expect(throws: SyncError.self) { try await HubClient.connect(hub) }
        #expect(error?.code == .unreachable && error?.isTransient == true)
        #expect(error?.message == "cannot reach the hub at 127.0.0.1:\(silent.port): no answer within 1 s")
    }
}
