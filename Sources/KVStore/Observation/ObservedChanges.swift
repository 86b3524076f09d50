/// The changes of an observed key path as an `AsyncSequence`, for tasks and actors.
///
/// Made by ``Store/changes(of:keyPath:options:)``; observation starts when it is made (so no
/// change is missed before iteration begins) and ends when the iterating task is cancelled, or
/// when the sequence and its iterators are gone. Changes are buffered until the task reads them.
///
/// ```swift
/// let task = Task {
///     for await change in try store.changes(of: ada, keyPath: "name") {
///         print(change.newValue?.stringValue ?? "none")
///     }
/// }
/// task.cancel()   // ends the loop and the observation
/// ```
public struct ObservedChanges: AsyncSequence, Sendable {
    /// Each element is one change of the observed key path.
    public typealias Element = ObservedChange

    /// Holds the observation's token; the stream's end (task cancelled, or no consumer left)
    /// releases it.
    final class Lifetime: Sendable {
        let token: ObservationToken
        init(_ token: ObservationToken) { self.token = token }
    }

    private let stream: AsyncStream<ObservedChange>
    private let lifetime: Lifetime

    init(stream: AsyncStream<ObservedChange>, lifetime: Lifetime) {
        self.stream = stream
        self.lifetime = lifetime
    }

    /// An iterator over the buffered and coming changes; it keeps the observation alive.
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: stream.makeAsyncIterator(), lifetime: lifetime)
    }

    /// Iterates an ``ObservedChanges``; it keeps the observation alive.
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncStream<ObservedChange>.Iterator
        let lifetime: Lifetime

        /// The next change, waiting for one; nil once the task is cancelled.
        public mutating func next() async -> ObservedChange? {
            await base.next()
        }
    }
}

extension Store {
    /// The changes of the value at `keyPath` of a record, as an `AsyncSequence`: the same changes
    /// ``observe(_:keyPath:options:_:)`` reports (with the same options; ``ObservationOptions/prior``
    /// is not offered here), delivered to the iterating task.
    ///
    /// ```swift
    /// for await change in try store.changes(of: ada, keyPath: "address.city", options: [.initial, .new]) {
    ///     if change.newValue == "Paris" { break }
    /// }
    /// ```
    /// - Throws: what ``observe(_:keyPath:options:_:)`` throws.
    public func changes(of ref: RecordRef, keyPath: String, options: ObservationOptions = [.new]) throws -> ObservedChanges {
        let (stream, continuation) = AsyncStream<ObservedChange>.makeStream(bufferingPolicy: .unbounded)
        let token = try observe(ref, keyPath: keyPath, options: options.subtracting(.prior)) { change in
            continuation.yield(change)
        }
        let lifetime = ObservedChanges.Lifetime(token)
        continuation.onTermination = { [weak lifetime] _ in lifetime?.token.cancel() }
        return ObservedChanges(stream: stream, lifetime: lifetime)
    }
}
