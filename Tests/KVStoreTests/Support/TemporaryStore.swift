import Foundation
@testable import KVStore

/// A store in its own fresh temporary directory, removed when the value goes away.
final class TemporaryStore {
    let path: String
    let store: Store

    init(options: Store.Options = Store.Options(), kinds: [Kind] = []) throws {
        path = NSTemporaryDirectory() + "kvstore-tests-" + UUID().uuidString
        var options = options
        options.kinds += kinds
        store = try Store(path: path, options: options)
    }

    /// A fresh temporary path with nothing at it (removed afterwards by the caller's `defer`).
    static func freshPath() -> String {
        NSTemporaryDirectory() + "kvstore-tests-" + UUID().uuidString
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

func ref(_ text: String) -> RecordRef {
    try! RecordRef(text)
}

/// Matches a ``KeyValueCodingError`` with the given code, for `#expect(performing:throws:)`.
func code(_ expected: KeyValueCodingError.Code) -> @Sendable (any Error) -> Bool {
    { ($0 as? KeyValueCodingError)?.code == expected }
}

/// A fresh temporary directory for the stores and files of one test, removed with everything in
/// it when the value goes away.
final class TemporaryDirectory {
    let path: String

    init() throws {
        path = TemporaryStore.freshPath()
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// The path of `name` in the directory.
    func path(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
