/// A sync operation refused: what and why, in one line.
package struct SyncError: Error, Sendable, CustomStringConvertible {
    package enum Code: String, Sendable {
        /// Sync was enabled for a kind that already has records: they have no journal entries
        /// to upload from (only changes made while a kind syncs are uploaded).
        case existingRecords
        /// A remote change this store cannot apply (its kind's rules refuse it, or it is
        /// malformed); nothing of the batch was applied.
        case refused
    }

    package let code: Code
    package let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { message }
}
