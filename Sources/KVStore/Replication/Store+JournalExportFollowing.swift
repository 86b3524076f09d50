/// Writing the journal as an open-ended stream that keeps up with new commits.
extension Store {
    /// Writes the journal from sequence `since` on as an **open-ended** journal stream (its header
    /// has no last sequence), then keeps appending each new commit as it is committed — by this
    /// process or another — until the follower is stopped. The stream then ends with its end frame.
    ///
    /// ```swift
    /// let running = Mutex<JournalFollower?>(nil)      // to stop the export from another thread
    /// Thread {
    ///     try? store.exportJournal(since: 1, following: JournalFollowOptions(), onStart: { follower in
    ///         running.withLock { $0 = follower }
    ///     }) { bytes in try output.write(contentsOf: bytes) }   // output: a FileHandle
    /// }.start()
    /// // … later
    /// running.withLock { $0?.stop() }                  // the stream ends with its end frame
    /// ```
    /// Commits are never split: bytes are sent when a batch read from one snapshot ends, which is
    /// always at a commit boundary, so a reader on the other side applies whole commits as they
    /// arrive. When the journal was truncated past `since`, the stream starts at its first entry.
    /// Stopping ends the stream after the commits read so far — already committed ones the
    /// follower has not reached yet are not sent (stopped in `onStart`, the stream holds none).
    ///
    /// - Parameters:
    ///   - since: the first sequence to write (default 1: the whole journal).
    ///   - options: how often to poll for new commits and how many entries to read at once.
    ///   - onStart: receives the follower once the stream's header is sent (at once, so the
    ///     reader learns the source before the first commit), before any entry; call its
    ///     ``JournalFollower/stop()`` (from any thread) to end the export.
    ///   - output: receives the stream's bytes; what it throws ends the export.
    /// - Throws: what `output` throws; ``JournalRetentionError/Code/cursorExpired`` when the
    ///   journal is truncated past the export's position while it runs. A failure other than
    ///   `output`'s first ends the stream with an error frame naming it (for a truncation, one
    ///   that tells the reader a new request may work: ``JournalStreamError/Code/sourceInterrupted``).
    public func exportJournal(
        since: UInt64 = 1, following options: JournalFollowOptions, onStart: (JournalFollower) -> Void,
        to output: @escaping ([UInt8]) throws -> Void
    ) throws {
        let first = try read { txn in try txn.firstSequence() ?? txn.lastSequence() + 1 }
        let start = max(since, 1, first)
        let writer = try JournalStreamWriter(
            header: JournalStreamHeader(storeID: id, firstSequence: start, lastSequence: nil), output: output)
        try writer.endBatch()   // send the header now: the reader learns the source before the first commit
        let follower = JournalFollower(store: self, after: start - 1, options: options)
        let limit = max(1, options.batchLimit)
        onStart(follower)
        try writer.endingWithError { try follow(follower, limit: limit, into: writer) }
    }

    /// Writes what `follower` delivers until it is stopped, then finishes the stream.
    private func follow(_ follower: JournalFollower, limit: Int, into writer: JournalStreamWriter) throws {
        var last: JournalEntry?
        try follower.run { batch in
            for entry in batch { try writer.append(entry) }
            last = batch.last ?? last
            // A batch shorter than the limit ends at its snapshot's end: a commit boundary.
            // A full one may stop inside a commit (its rest comes with the next batch), or end
            // one exactly: then no later batch may come soon, so close that commit now.
            if try batch.count < limit || endsCommit(batch.last) { try writer.endBatch() }
        }
        // Stopped: finish a commit the last batch may have cut, so the stream never ends inside one.
        while let tail = last {
            let rest = try read { try $0.journalEntries(after: tail.sequence, limit: limit) }
                .prefix { $0.commitID == tail.commitID }
            for entry in rest { try writer.append(entry) }
            last = rest.count == limit ? rest.last : nil
        }
        try writer.finish()
    }

    /// Whether `entry` is the last of its commit: the journal holds no entry after it, or the next
    /// one belongs to another commit (a snapshot holds whole commits).
    private func endsCommit(_ entry: JournalEntry?) throws -> Bool {
        guard let entry else { return false }
        let next = try read { try $0.journalEntries(after: entry.sequence, limit: 1) }.first
        return next.map { $0.commitID != entry.commitID } ?? true
    }
}
