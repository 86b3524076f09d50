import KVStore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one-line message the tool prints for an error: its description, except where the library's
/// advice is about the library and the tool's user needs other words.
enum CommandMessage {
    static func text(of error: any Error) -> String {
        if let error = error as? StoreError, error.code == .readOnly, error.underlying?.code == EROFS {
            // The library says "open it read-only" (Store.Options.readOnly); the tool has no such
            // option: its reading commands open stores read-only already.
            let place = error.path.map { "\($0): " } ?? ""
            return "\(place)the store is on a read-only file system: it can be read (get, dump, value, journal list, journal export, stat, verify, diff), not changed"
        }
        return ErrorReason.text(of: error)  // a Foundation error's reason, not its dump on Linux
    }
}
