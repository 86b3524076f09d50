import CLMDB

/// What happens when LMDB stops on an inconsistency it asserts against (`mdb_assert`: a page
/// that is not what its tree says it is, most often a damaged file): by default LMDB prints its
/// message and aborts the process (`SIGABRT`). An application can say it its own way first.
///
/// ```swift
/// LMDBAssertion.setHandler { message in
///     // e.g. "mdb.c:5921: Assertion 'IS_LEAF(mp)' failed in mdb_cursor_next()"
///     log(message)
///     _exit(1)
/// }
/// ```
/// LMDB is in the middle of a read or a write and cannot go on: the handler should end the
/// process (when it returns, LMDB aborts as before). It runs on the thread that met the
/// inconsistency, with LMDB's locks held: it must not use the environment.
public enum LMDBAssertion {
    private static let handler = LockedState<(@Sendable (String) -> Void)?>(nil)

    /// Sets (or with nil, removes) the function called with LMDB's message before it aborts; it
    /// applies to every environment of the process, opened before or after.
    public static func setHandler(_ handler: (@Sendable (String) -> Void)?) {
        self.handler.withLock { $0 = handler }
    }

    /// The callback each environment is given (`mdb_env_set_assert`).
    static let callback: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> Void = { _, message in
        guard let handle = LMDBAssertion.handler.withLock({ $0 }) else { return }
        handle(message.map { String(cString: $0) } ?? "an LMDB assertion failed")
    }
}
