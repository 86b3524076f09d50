/// Writing the journal as a portable stream (``JournalStream``).
extension Store {
    /// Writes the journal from sequence `since` on as a journal stream to `output`, through the
    /// entry that was last when the export started. Entries are read in short read transactions
    /// of a few thousand entries each, checked as a stream reader checks them (each decodes, is
    /// the entry its key says, and has the fields its change needs), and copied as they are stored.
    ///
    /// ```swift
    /// var bytes: [UInt8] = []
    /// try store.exportJournal(since: 1) { bytes += $0 }
    /// try replica.applyJournal(JournalStreamReader(bytes: bytes))
    /// ```
    /// When the journal was truncated past `since`, the stream starts at its first entry (a
    /// replica that needs the missing ones refuses it as a gap); when `since` is past the last
    /// entry, the stream is empty and starts after the last entry. An export that fails once the
    /// stream started (a storage error, entries truncated meanwhile, an entry too large for a
    /// frame) ends the stream with an error frame naming the problem before it throws.
    /// - Returns: the stream's header.
    @discardableResult
    public func exportJournal(since: UInt64 = 1, to output: @escaping ([UInt8]) throws -> Void) throws -> JournalStreamHeader {
        let (first, last) = try read { txn in (try txn.firstSequence(), try txn.lastSequence()) }
        // Past the last entry there is nothing to send: the stream is empty, after the last entry.
        let start = min(max(since, 1, first ?? last + 1), last + 1)
        let header = JournalStreamHeader(storeID: id, firstSequence: start, lastSequence: start <= last ? last : start - 1)
        let writer = try JournalStreamWriter(header: header, output: output)
        try writer.endingWithError {
            if start <= last { try appendJournal(from: start, through: last, to: writer) }
            try writer.finish()
        }
        return header
    }

    /// Appends the journal entries `from`…`through` to `writer` and ends the batch (the last
    /// entry must end a commit, as the last entry of any snapshot does). For a follow export,
    /// call it again with the entries committed since.
    /// - Throws: ``StoreError/Code/corrupt`` for an entry that is not the entry its key says or
    ///   has no commit id, and ``JournalStreamError`` when entries in the range are missing
    ///   (truncated meanwhile).
    package func appendJournal(from: UInt64, through: UInt64, to writer: JournalStreamWriter) throws {
        var next = from
        while next <= through {
            let before = next
            try read { txn in
                var n = 0
                try txn.transaction.scan(databases.journal, from: StoreLayout.sequenceKey(next)) { key, value in
                    guard let sequence = StoreLayout.sequence(fromKey: key), sequence <= through else { return false }
                    let commitID = try checkStoredEntry(value, sequence: sequence)
                    try writer.append(encoded: value, sequence: sequence, commitID: commitID)
                    next = sequence + 1
                    n += 1
                    return n < 4096
                }
            }
            if next == before {
                throw JournalStreamError(.gap, "journal \(entries(next, through: through)) of \(path) \(are(next, through: through)) missing (truncated during the export?)")
            }
        }
        try writer.endBatch()
    }

    /// Checks that the stored entry `sequence` is the entry its key names and has a commit id —
    /// reading those two fields only, so export copies entries at the speed of the disk.
    /// Everything else an entry holds is checked by the stream reader before anything is applied
    /// (and by ``verify(progress:)``); decoding every entry here too would make export as slow as
    /// apply.
    /// - Returns: the entry's commit id.
    /// - Throws: ``StoreError/Code/corrupt`` naming the entry and the problem.
    private func checkStoredEntry(_ stored: UnsafeRawBufferPointer, sequence: UInt64) throws -> UInt64 {
        func field(_ key: String) throws -> Int64? {
            do { return try RecordCodec.value(forKey: key, in: stored)?.intValue } catch {
                throw StoreError(.corrupt, "journal entry \(sequence) is corrupt: \(error)", path: path)
            }
        }
        guard let commit = try field("commit"), let stated = try field("sequence") else {
            throw StoreError(.corrupt, "journal entry \(sequence) is corrupt: it has no commit id or sequence", path: path)
        }
        guard UInt64(bitPattern: stated) == sequence else {
            throw StoreError(.corrupt, "journal entry \(sequence) is corrupt: it says it is entry \(stated)", path: path)
        }
        return UInt64(bitPattern: commit)
    }
}
