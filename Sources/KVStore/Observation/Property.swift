import LMDB

/// A value that tells its subscribers when it changes; subscribers are held weakly and dropped
/// once they are gone.
///
/// A subscription names an owner object: the handler runs only while the owner lives, and
/// subscriptions whose owner has been deallocated are culled (at the next change, or when
/// ``subscriberCount`` is read). Handlers run on the thread that sets ``value``, outside the
/// property's lock, and see the values in the order they were set: a set made while another
/// thread's handlers run waits for them to finish. A handler may read or set the property; its
/// set returns at once and its value is delivered after the current one.
///
/// ```swift
/// let title = Property("untitled")
/// title.subscribe(view) { view, title in view.heading = title }   // runs now, and on each change
/// title.value = "Invoices"
/// ```
public final class Property<T: Sendable>: Sendable {
    private struct Subscriber: @unchecked Sendable {
        weak var owner: AnyObject?
        let handler: @Sendable (AnyObject, T) -> Void
    }

    private let state: LockedState<(value: T, subscribers: [Subscriber])>
    /// Values to hand to subscribers, queued in the order they were set.
    private let deliveries = DeliveryQueue<(value: T, subscribers: [Subscriber])>()

    public init(_ value: T) {
        state = LockedState((value, []))
    }

    /// The current value; setting it notifies every living subscriber.
    public var value: T {
        get { state.withLock { $0.value } }
        set {
            let ticket = state.withLock { state -> UInt64 in
                state.value = newValue
                state.subscribers.removeAll { $0.owner == nil }
                return deliveries.enqueue((newValue, state.subscribers))
            }
            deliver(through: ticket)
        }
    }

    private func deliver(through ticket: UInt64) {
        deliveries.deliver(through: ticket) { value, subscribers in
            for subscriber in subscribers {
                if let owner = subscriber.owner { subscriber.handler(owner, value) }
            }
        }
    }

    /// Calls `handler` with the current value now (from inside a handler of this property: after
    /// the value being delivered) and with every new value while `owner` lives. The property
    /// holds `owner` weakly.
    public func subscribe<Owner: AnyObject & Sendable>(_ owner: Owner, _ handler: @escaping @Sendable (Owner, T) -> Void) {
        let ticket = state.withLock { state -> UInt64 in
            let subscriber = Subscriber(owner: owner) { owner, value in handler(owner as! Owner, value) }
            state.subscribers.append(subscriber)
            return deliveries.enqueue((state.value, [subscriber]))
        }
        deliver(through: ticket)
    }

    /// The number of subscribers whose owner still lives (the others are culled).
    public var subscriberCount: Int {
        state.withLock { state in
            state.subscribers.removeAll { $0.owner == nil }
            return state.subscribers.count
        }
    }
}
