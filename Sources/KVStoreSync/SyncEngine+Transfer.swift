import Foundation
@_spi(Sync) import KVStore

extension SyncEngine {
    /// Uploads the local changes after journal sequence `through`, a batch per hub transaction,
    /// storing the upload cursor after each batch the hub committed.
    /// Entries a forced truncation dropped before they were uploaded are gone: the upload goes
    /// on after them (listed in the report) rather than failing at every pass.
    func upload(_ client: HubClient, after through: UInt64, hub: HubProbe, into report: inout SyncReport) async throws {
        var through = through
        let oldest = try await store.read { try $0.oldestCoveredCursor() }
        if through < oldest {
            report.truncatedBeforeUpload = through + 1 ... oldest
            try storeUploadCursor(oldest, hub: hub)
            through = oldest
        }
        var (changes, last) = try await localBatch(after: through)
        while last > through {
            // The next batch is read from the store while this one is uploaded.
            let next = last
            async let following = localBatch(after: next)
            if !changes.isEmpty {
                let result = try await client.upload(changes, from: store.id)
                report.uploaded += changes.count
                report.uploadedNew += result.newChanges
                report.uploadBatches += 1
            }
            try storeUploadCursor(last, hub: hub)
            through = last
            (changes, last) = try await following
        }
    }

    /// The local changes of the next batch of journal entries after `through`, and the last
    /// entry's sequence (`through` when there is none).
    private func localBatch(after through: UInt64) async throws -> (changes: [HubChange], last: UInt64) {
        let (changes, last) = try await store.read { [limit = options.batchSize] in try $0.localChanges(after: through, limit: limit) }
        return (changes.map(HubChange.init), last)
    }

    /// Moves the upload cursor to `last` (never back).
    private func storeUploadCursor(_ last: UInt64, hub: HubProbe) throws {
        try local {
            try store.write { txn in
                var cursors = try Self.cursors(in: txn, hub: hub)
                cursors.uploadedThrough = max(cursors.uploadedThrough, last)
                try txn.setSyncCursors(cursors)
            }
        }
    }

    /// Downloads the other stores' changes after `download` (the stored cursor, empty: the
    /// start), applying each page and the cursor after it in one write transaction.
    func download(_ client: HubClient, after download: [UInt8], kinds: Set<String>?, hub: HubProbe,
                  into report: inout SyncReport) async throws {
        var cursor = try decodeCursor(download)
        var restarted = false
        // The page asked for while the one before was applied (nil: none was).
        var prefetched: HubPage??
        while true {
            let fetched: HubPage?
            if let prefetched {
                fetched = prefetched
            } else {
                fetched = try await page(client, after: cursor, kinds: kinds, restarting: !restarted)
            }
            prefetched = nil
            guard let page = fetched else {
                // The hub was restored into another server: read it again from the start
                // (applying a change twice changes nothing).
                (cursor, restarted) = (.start, true)
                continue
            }
            if page.rows.isEmpty && page.cursor == cursor { return }
            // The next page is asked for while this one is applied: the hub's reading and the
            // round trip overlap the store's write. (Only after a full page: a short one is the
            // last, and a page is requested only after the one before it arrived, so the cursor
            // it starts from is known.)
            let (nextCursor, mayRestart) = (page.cursor, !restarted)
            async let next = page.isCaughtUp ? nil : self.page(client, after: nextCursor, kinds: kinds, restarting: mayRestart)
            let changes = page.rows.map(\.change.remote)
            let hubNow = store.options.wallClock().addingTimeInterval(Double(hub.offsetMilliseconds) / 1000)
            let applied = try local {
                try store.write { txn in
                    let applied = changes.isEmpty ? RemoteApplyReport() : try txn.applyRemote(changes, hubNow: hubNow)
                    var cursors = try Self.cursors(in: txn, hub: hub)
                    cursors.download = Array(page.cursor.description.utf8)
                    try txn.setSyncCursors(cursors)
                    return applied
                }
            }
            report.downloaded += changes.count
            report.applied += applied.applied
            report.aheadOfClock += applied.aheadOfClock.map(\.description)
            cursor = page.cursor
            if page.isCaughtUp { return }
            prefetched = .some(try await next)
        }
    }

    /// The page after `cursor`; nil when the cursor is ahead of the hub's transactions and
    /// `restarting` allows starting over.
    private func page(_ client: HubClient, after cursor: HubCursor, kinds: Set<String>?, restarting: Bool) async throws(SyncError) -> HubPage? {
        do {
            return try await client.download(after: cursor, excluding: store.id, kinds: kinds, limit: options.batchSize)
        } catch {
            if error.code == .cursorAhead && restarting { return nil }
            throw error
        }
    }

    /// The download cursor as the store keeps it (``HubCursor/description``'s text; empty: the
    /// start).
    func decodeCursor(_ bytes: [UInt8]) throws(SyncError) -> HubCursor {
        if bytes.isEmpty { return .start }
        guard let cursor = HubCursor(String(decoding: bytes, as: UTF8.self)) else {
            throw SyncError(.storeRefused, hub: hub.name, "store \(store.path): its download cursor is damaged (not TXID:ID)")
        }
        return cursor
    }
}
