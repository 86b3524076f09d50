/// What ``Store/verify(progress:)`` checks of the journal's stamps: each record's local entries
/// (no origin) carry strictly increasing times — what last-writer-wins needs: a record's later
/// change must win over its earlier ones. (Not the store's entries as a whole: a change of a
/// record holding a stamp ahead of the clock is stamped after it, and the clock stays behind.)
/// Entries without a stamp (written before stamps) and entries applied from other stores (their
/// source's times) are not compared.
struct LocalStampOrder {
    private var previous: [RecordRef: (sequence: UInt64, time: HybridTime)] = [:]

    /// Checks `entry`, the journal's next entry, against the local entries of its record before it.
    mutating func check(_ entry: JournalEntry, into report: inout VerificationReport) {
        guard entry.origin == nil, let time = entry.stamp else { return }
        if let previous = previous[entry.ref], time <= previous.time {
            report.add("journal entry \(entry.sequence) has stamp \(time), not after the stamp \(previous.time) of entry \(previous.sequence) of the same record \(entry.ref): the store's clock went back")
        }
        previous[entry.ref] = (entry.sequence, time)
    }
}
