import Foundation
@testable import KVStore
import TestSupport

/// A store in a fresh temporary directory of its own, removed when the value goes away.
final class TemporaryStore {
    /// The directory holding the store (and whatever else the test puts beside it).
    let directory: TemporaryDirectory
    /// The store's path: `store` in ``directory``.
    let path: String
    let store: Store

    init(options: Store.Options = .testing, kinds: [Kind] = []) throws {
        directory = try TemporaryDirectory()
        path = directory.path("store")
        var options = options
        options.kinds += kinds
        store = try Store(path: path, options: options)
    }
}

extension Store.Options {
    /// What test stores open with: the defaults but ``Durability/noSync``. A commit then skips
    /// LMDB's fsyncs, which only an OS crash or a power loss needs, and no test makes one: about
    /// half of the suite's time went to them. Tests whose subject is durability (group commit's
    /// shared syncs, reopening with another durability, a full disk) open with `Store.Options()`.
    /// Every opening of one store in a process must use the same durability (else `alreadyOpen`).
    static var testing: Store.Options {
        var options = Store.Options()
        options.durability = .noSync
        return options
    }
}

func ref(_ text: String) -> RecordRef {
    try! RecordRef(text)
}

/// Matches a ``KeyValueCodingError`` with the given code, for `#expect(performing:throws:)`.
func code(_ expected: KeyValueCodingError.Code) -> @Sendable (any Error) -> Bool {
    { ($0 as? KeyValueCodingError)?.code == expected }
}
