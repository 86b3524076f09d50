import Foundation

/// What callbacks received, from any thread, in order.
final class Received<Item: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Item] = []

    func add(_ item: Item) { lock.withLock { items.append(item) } }
    var all: [Item] { lock.withLock { items } }
    var count: Int { lock.withLock { items.count } }
}
