/// The version of kvstore, as `kvstore --version` prints it: the one place it is written.
///
/// The library has no version constant; if `KVStore` gets one, this should become that.
enum KVStoreVersion {
    static let current = "0.1.0"
}
