/// What ``Store/verify(progress:)`` checks of the journal's stamps: the store's own entries (no
/// origin) carry strictly increasing times — the clock never gives a time twice, nor goes back.
/// Entries without a stamp (written before stamps) and entries applied from other stores (their
/// source's times) are not compared.
struct LocalStampOrder {
    private var previous: (sequence: UInt64, time: HybridTime)?

    /// Checks `entry`, the journal's next entry, against the local entries before it.
    mutating func check(_ entry: JournalEntry, into report: inout VerificationReport) {
        guard entry.origin == nil, let time = entry.stamp else { return }
        if let previous, time <= previous.time {
            report.add("journal entry \(entry.sequence) has stamp \(time), not after the stamp \(previous.time) of entry \(previous.sequence): the store's clock went back")
        }
        previous = (entry.sequence, time)
    }
}
