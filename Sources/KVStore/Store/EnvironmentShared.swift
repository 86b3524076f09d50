import LMDB

/// One object per LMDB environment, shared by every ``Store`` open on it in this process (one
/// process opens each store's environment once: see `EnvironmentRegistry`): the observers
/// (``ObservationHub``), the decoded kind catalog (``KindCatalogCache``).
///
/// ```swift
/// private static let hubs = EnvironmentShared<ObservationHub>()
/// let hub = hubs.object(for: environment) { ObservationHub() }
/// ```
/// Objects and environments are held weakly: the stores hold their environment's objects, and an
/// address reused by a later environment never finds an earlier environment's object.
final class EnvironmentShared<Object: AnyObject & Sendable>: Sendable {
    private final class Entry: Sendable {
        weak let object: Object?
        weak let environment: Environment?
        init(_ object: Object, _ environment: Environment) {
            self.object = object
            self.environment = environment
        }
    }

    private let entries = LockedState<[ObjectIdentifier: Entry]>([:])

    /// The object of `environment`, made by `make` on first use.
    func object(for environment: Environment, make: () -> Object) -> Object {
        entries.withLock { entries in
            let key = ObjectIdentifier(environment)
            if let entry = entries[key], entry.environment === environment, let object = entry.object { return object }
            entries = entries.filter { $0.value.object != nil && $0.value.environment != nil }
            let object = make()
            entries[key] = Entry(object, environment)
            return object
        }
    }
}
