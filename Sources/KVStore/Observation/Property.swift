import LMDB

/// A value that tells its subscribers when it changes; subscribers are held weakly and dropped
/// once they are gone.
///
/// A subscription names an owner object: the handler runs only while the owner lives, and
/// subscriptions whose owner has been deallocated are culled (at the next change, or when
/// ``subscriberCount`` is read). Handlers run outside the property's lock, one value at a time,
/// in the order the values were set: on the thread that sets ``value`` — or, when another thread
/// is handing out values at that moment, on that thread, right after them (a set never waits for
/// another thread's handlers). A handler may read or set the property; a value it sets is handed
/// out after the current one.
///
/// ```swift
/// let title = Property("untitled")
/// title.subscribe(view) { view, title in view.heading = title }   // runs now, and on each change
/// title.value = "Invoices"
/// ```
public final class Property<T: Sendable>: Sendable {
    private struct Subscriber: Sendable {
        weak let owner: (any AnyObject & Sendable)?
        let handler: @Sendable (AnyObject, T) -> Void
    }

    private struct State {
        var value: T
        var subscribers: [Subscriber] = []
        /// Values not yet handed out, oldest first, each with the subscribers to hand it to.
        var pending: [(value: T, subscribers: [Subscriber])] = []
        /// Whether a thread is handing out `pending`.
        var delivering = false
    }

    private let state: LockedState<State>

    /// A property holding `value`, with no subscribers.
    public init(_ value: T) {
        state = LockedState(State(value: value))
    }

    /// The current value; setting it notifies every living subscriber.
    public var value: T {
        get { state.withLock { $0.value } }
        set {
            deliver { state in
                state.value = newValue
                state.subscribers.removeAll { $0.owner == nil }
                return (newValue, state.subscribers)
            }
        }
    }

    /// Calls `handler` with the current value now (from inside a handler, or while another thread
    /// hands out values: right after them) and with every new value while `owner` lives. The
    /// property holds `owner` weakly.
    public func subscribe<Owner: AnyObject & Sendable>(_ owner: Owner, _ handler: @escaping @Sendable (Owner, T) -> Void) {
        deliver { state in
            let subscriber = Subscriber(owner: owner) { owner, value in handler(owner as! Owner, value) }
            state.subscribers.append(subscriber)
            return (state.value, [subscriber])
        }
    }

    /// The number of subscribers whose owner still lives (the others are culled).
    public var subscriberCount: Int {
        state.withLock { state in
            state.subscribers.removeAll { $0.owner == nil }
            return state.subscribers.count
        }
    }

    /// Queues what `change` returns (under the lock); then, unless a thread is handing out values
    /// already, hands out every queued one, oldest first.
    private func deliver(_ change: (inout State) -> (value: T, subscribers: [Subscriber])) {
        let delivers = state.withLock { state -> Bool in
            state.pending.append(change(&state))
            guard !state.delivering else { return false }
            state.delivering = true
            return true
        }
        guard delivers else { return }
        while let (value, subscribers) = state.withLock({ state -> (T, [Subscriber])? in
            guard !state.pending.isEmpty else {
                state.delivering = false
                return nil
            }
            return state.pending.removeFirst()
        }) {
            for subscriber in subscribers {
                if let owner = subscriber.owner { subscriber.handler(owner, value) }
            }
        }
    }
}
