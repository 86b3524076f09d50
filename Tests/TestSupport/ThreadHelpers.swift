import Foundation

/// Failures collected from many threads, checked once they have all finished.
public final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []

    public init() {}

    public func add(_ item: String) { lock.withLock { items.append(item) } }
    public var all: [String] { lock.withLock { items } }
}

/// A flag one thread raises and others poll (for example "the writer is done").
public final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    public init() {}

    public func set() { lock.withLock { value = true } }
    public var isSet: Bool { lock.withLock { value } }
}
