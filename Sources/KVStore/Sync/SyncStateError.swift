/// A sync operation refused: what and why, in one line.
package struct SyncStateError: Error, Sendable, CustomStringConvertible {
    package enum Code: String, Sendable {
        /// Sync was enabled for a kind that already has records: they have no journal entries
        /// to upload from (only changes made while a kind syncs are uploaded).
        case existingRecords
        /// A remote change this store cannot apply (its kind's rules refuse it, or it is
        /// malformed); nothing of the batch was applied.
        case refused
        /// A remote change to a kind this store does not sync; nothing of the batch was applied.
        case kindNotSynced
        /// Sync cursors for a store that has no sync configuration.
        case notSyncing
        /// An upload cursor past the journal's last sequence: the store's journal is behind
        /// what it uploaded (restored from a backup, or a copy).
        case cursorAhead
    }

    package let code: Code
    package let message: String
    /// The remote change refused (``Code/refused``, ``Code/kindNotSynced``): its origin store and
    /// sequence, record and key.
    package let change: RemoteChange?

    init(_ code: Code, _ message: String, change: RemoteChange? = nil) {
        self.code = code
        self.message = message
        self.change = change
    }

    /// A remote change refused, and why.
    static func refused(_ change: RemoteChange, _ reason: String, code: Code = .refused) -> SyncStateError {
        SyncStateError(code, "remote change \(change) refused: \(reason); nothing of its batch is applied", change: change)
    }

    package var description: String { message }
}
