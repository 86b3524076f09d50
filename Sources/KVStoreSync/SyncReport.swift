import Foundation

/// What one sync pass did (``SyncEngine/sync()``), or a follower's pass.
public struct SyncReport: Sendable, Equatable, CustomStringConvertible {
    /// The hub's identity.
    public var hub = UUID()
    /// Local changes sent to the hub.
    public var uploaded = 0
    /// Of those, the ones the hub did not hold yet (the rest: a batch sent again after its
    /// acknowledgement was lost).
    public var uploadedNew = 0
    /// Upload batches (hub transactions).
    public var uploadBatches = 0
    /// Other stores' changes read from the hub.
    public var downloaded = 0
    /// Of those, the changes that changed this store (the rest were already applied or
    /// superseded by a later stamp).
    public var applied = 0
    /// Downloaded changes stamped more than a minute ahead of the hub's clock: applied by the
    /// rule, but this store's clock did not move to them. Each as `kind/id key (origin#seq)`.
    public var aheadOfClock: [String] = []
    /// Journal sequences after the upload cursor that a forced truncation dropped before they
    /// were uploaded: their changes never reach the hub (the upload goes on after them).
    public var truncatedBeforeUpload: ClosedRange<UInt64>?
    /// The hub's clock minus this machine's, in milliseconds, measured this pass.
    public var clockOffsetMilliseconds: Int64 = 0
    /// Whether this store's new stamps use the hub's time (this machine's clock is more than a
    /// minute ahead of the hub's).
    public var clockClamped = false

    /// One line: `uploaded 3 (3 new), downloaded 5, applied 4, clock offset -12 ms`, and the
    /// clamping and the changes ahead of the clock when there are any.
    public var description: String {
        var text = "uploaded \(uploaded) (\(uploadedNew) new), downloaded \(downloaded), applied \(applied), clock offset \(clockOffsetMilliseconds) ms"
        if clockClamped { text += " (this clock is ahead of the hub's: new stamps use the hub's time)" }
        if !aheadOfClock.isEmpty {
            text += ", \(aheadOfClock.count) change\(aheadOfClock.count == 1 ? "" : "s") stamped over a minute ahead of the hub's clock "
                + "(first: \(aheadOfClock[0]))"
        }
        if let lost = truncatedBeforeUpload {
            text += ", journal entries \(lost.lowerBound) through \(lost.upperBound) were truncated before upload (not sent)"
        }
        return text
    }
}
