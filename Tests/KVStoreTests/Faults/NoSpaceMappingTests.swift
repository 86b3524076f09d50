import Foundation
import LMDB
import Testing
@testable import KVStore

/// LMDB reports a write cut short by a full device as `EIO`: the store calls it
/// ``StoreError/Code/noSpace`` only when the device really has no block left. A file system that
/// reports no blocks at all (`/proc`, some FUSE and network file systems report zero of zero) is
/// not full, and a real I/O error there stays a storage error.
@Suite struct NoSpaceMappingTests {
    @Test func aFileSystemReportingNoBlocksIsNotFull() {
        var status = statvfs()
        #expect(statvfs("/proc", &status) == 0 && status.f_blocks == 0 && status.f_bavail == 0)
        #expect(!StoreFiles.deviceIsFull("/proc"))
    }

    @Test func anIOErrorWhereTheDeviceIsNotFullIsAStorageError() {
        let error = StoreError.storage(LMDBError(code: EIO, operation: "mdb_txn_commit"), path: "/proc")
        #expect(error.code == .storage)
        #expect("\(error)".hasPrefix("/proc: storage error: mdb_txn_commit: "), "\(error)")
    }
}
