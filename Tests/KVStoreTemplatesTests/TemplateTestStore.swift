import Foundation
import KVStore
import TestSupport

/// A store in its own temporary directory (``TemporaryDirectory``), removed when the value goes
/// away: the records the template tests render.
final class TemplateTestStore {
    private let directory: TemporaryDirectory
    let store: Store

    init() throws {
        directory = try TemporaryDirectory()
        var options = Store.Options()
        options.durability = .noSync   // durability is not what these tests are about
        store = try Store(path: directory.path("store"), options: options)
    }
}
