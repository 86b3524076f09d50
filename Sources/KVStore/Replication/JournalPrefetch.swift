import Foundation

/// The next batch of a source's journal, read (checked, copied, decoded where it must be) on a
/// thread of its own while the current batch is applied: a replicator catching up reads and
/// applies at the same time, on two cores.
///
/// ```swift
/// let next = JournalPrefetch(tail)          // starts reading after the tail's position
/// try apply(current)
/// let (batch, advanced) = try next.result()  // waits; the tail moved past the batch
/// ```
final class JournalPrefetch: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    /// Written once by the reading thread before `done` is signalled; read after waiting on it.
    private var outcome: Result<(SourceEntries?, JournalTail), any Error>?

    init(_ tail: JournalTail) {
        Thread { [self] in
            var tail = tail
            outcome = Result { (try tail.pollSourceEntries(), tail) }
            done.signal()
        }.start()
    }

    /// The batch read (as ``JournalTail/pollSourceEntries()`` returned it) and the tail after it,
    /// once read.
    /// - Throws: what the read threw.
    func result() throws -> (SourceEntries?, JournalTail) {
        done.wait()
        return try outcome!.get()
    }
}
