import Testing
@testable import KVStore

extension Store {
    /// Makes one commit with `body` and returns its id (the revert and undo tests' commits).
    @discardableResult
    func commitID(_ body: (WriteTransaction) throws -> Void) throws -> UInt64 {
        try #require(try write { txn in try body(txn); return txn.commitID })
    }
}
