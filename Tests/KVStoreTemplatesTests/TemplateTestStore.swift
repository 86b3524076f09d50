import Foundation
import KVStore

/// A store in its own fresh temporary directory, removed when the value goes away: the records
/// the template tests render.
final class TemplateTestStore {
    let path = NSTemporaryDirectory() + "kvstore-template-tests-" + UUID().uuidString
    let store: Store

    init() throws {
        store = try Store(path: path)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
