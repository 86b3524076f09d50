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

    init(options: Store.Options = Store.Options(), kinds: [Kind] = []) throws {
        directory = try TemporaryDirectory()
        path = directory.path("store")
        var options = options
        options.kinds += kinds
        store = try Store(path: path, options: options)
    }
}

func ref(_ text: String) -> RecordRef {
    try! RecordRef(text)
}

/// Matches a ``KeyValueCodingError`` with the given code, for `#expect(performing:throws:)`.
func code(_ expected: KeyValueCodingError.Code) -> @Sendable (any Error) -> Bool {
    { ($0 as? KeyValueCodingError)?.code == expected }
}
