/// Keeps an observation alive: releasing the token, or calling ``cancel()``, stops it.
///
/// Keep the token as long as you want notifications (a discarded token ends the observation at
/// once). Cancelling is idempotent and may happen on any thread, also from inside the callback;
/// a notification already being delivered finishes, and no later one arrives.
///
/// ```swift
/// let token = try store.observe(ada, keyPath: "name") { change in print(change.newValue?.stringValue ?? "none") }
/// token.cancel()   // or let it go
/// ```
public final class ObservationToken: Sendable {
    private let cancellation: @Sendable () -> Void

    init(_ cancellation: @escaping @Sendable () -> Void) {
        self.cancellation = cancellation
    }

    /// Stops the observation (again: nothing happens).
    public func cancel() {
        cancellation()
    }

    deinit { cancellation() }
}
