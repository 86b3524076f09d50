import LMDB

/// A value that tells its subscribers when it changes; subscribers are held weakly and dropped
/// once they are gone.
///
/// A subscription names an owner object: the handler runs only while the owner lives, and
/// subscriptions whose owner has been deallocated are culled (at the next change, or when
/// ``subscriberCount`` is read). Handlers run on the thread that sets ``value``, outside the
/// property's lock (a handler may read or set the property).
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

    public init(_ value: T) {
        state = LockedState((value, []))
    }

    /// The current value; setting it notifies every living subscriber.
    public var value: T {
        get { state.withLock { $0.value } }
        set {
            let subscribers = state.withLock { state -> [Subscriber] in
                state.value = newValue
                state.subscribers.removeAll { $0.owner == nil }
                return state.subscribers
            }
            for subscriber in subscribers {
                if let owner = subscriber.owner { subscriber.handler(owner, newValue) }
            }
        }
    }

    /// Calls `handler` with the current value now and with every new value while `owner` lives.
    /// The property holds `owner` weakly.
    public func subscribe<Owner: AnyObject & Sendable>(_ owner: Owner, _ handler: @escaping @Sendable (Owner, T) -> Void) {
        let current = state.withLock { state -> T in
            state.subscribers.append(Subscriber(owner: owner) { owner, value in handler(owner as! Owner, value) })
            return state.value
        }
        handler(owner, current)
    }

    /// The number of subscribers whose owner still lives (the others are culled).
    public var subscriberCount: Int {
        state.withLock { state in
            state.subscribers.removeAll { $0.owner == nil }
            return state.subscribers.count
        }
    }
}
