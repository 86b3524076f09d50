import LMDB
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Ends the tool with one line instead of a signal and a backtrace when a read meets damage
/// deep in a store's file that the checks made on opening cannot see: LMDB follows its pages
/// without checking them, and stops on an assertion (`SIGABRT`) or faults (`SIGSEGV`, `SIGBUS`).
///
/// The line names the stores the command opened and points to `kvstore verify`; it says the file
/// *may* be damaged, since a fault may also be a bug. The exit status is the command's error
/// status (1; 2 for `verify` and `diff`). Only the tool installs this: the library installs no
/// signal handler in an application.
///
/// ```swift
/// CrashGuard.install(status: 1)       // before the command runs
/// CrashGuard.note(store: path)        // as each store is opened
/// ```
enum CrashGuard {
    /// The lines the signal handler writes, formatted ahead (a handler may only `write`).
    nonisolated(unsafe) private static var segvLine = line(for: "SIGSEGV", stores: [])
    nonisolated(unsafe) private static var busLine = line(for: "SIGBUS", stores: [])
    nonisolated(unsafe) private static var status: Int32 = 1
    nonisolated(unsafe) private static var stores: [String] = []

    /// Installs the handlers: an LMDB assertion handler, and for `SIGSEGV` and `SIGBUS` a handler on
    /// an alternate stack (a fault may come from a stack overflow).
    static func install(status: Int32) {
        self.status = status
        // A write to a closed pipe (`kvstore dump S | head`) fails with `EPIPE`, which the
        // output reports or ends on (`StandardOutput`), instead of killing the tool.
        signal(SIGPIPE, SIG_IGN)
        note(stores: [])
        LMDBAssertion.setHandler { message in
            CrashGuard.report(CrashGuard.text(cause: "LMDB stopped on an inconsistency (\(message))"))
            _exit(CrashGuard.status)
        }
        let size = 1 << 16
        var stack = stack_t()
        stack.ss_sp = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        stack.ss_size = size
        sigaltstack(&stack, nil)
        let handler: @convention(c) (Int32) -> Void = { signal in
            let line = signal == SIGBUS ? CrashGuard.busLine : CrashGuard.segvLine
            _ = write(2, line.baseAddress, line.count)
            _exit(CrashGuard.status)
        }
        var action = sigaction()
        #if canImport(Glibc)
        action.__sigaction_handler.sa_handler = handler
        #else
        action.__sigaction_u.__sa_handler = handler
        #endif
        action.sa_flags = Int32(SA_ONSTACK) | Int32(bitPattern: UInt32(SA_RESETHAND))
        sigemptyset(&action.sa_mask)
        sigaction(SIGSEGV, &action, nil)
        sigaction(SIGBUS, &action, nil)
    }

    /// Notes a store the command opens, for the line.
    static func note(store path: String) {
        note(stores: stores + [path])
    }

    private static func note(stores: [String]) {
        self.stores = stores
        // The old lines are not freed: the handler may be reading them.
        segvLine = line(for: "SIGSEGV", stores: stores)
        busLine = line(for: "SIGBUS", stores: stores)
    }

    private static func line(for signal: String, stores: [String]) -> UnsafeBufferPointer<UInt8> {
        let bytes = Array((text(cause: "crashed (signal \(signal))", stores: stores) + "\n").utf8)
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
        _ = buffer.initialize(from: bytes)
        return UnsafeBufferPointer(buffer)
    }

    /// `kvstore: PATH: <cause> while reading the store: its file may be damaged; run …`.
    private static func text(cause: String, stores: [String]? = nil) -> String {
        switch stores ?? self.stores {
        case []:
            return "kvstore: \(cause); this is a bug in kvstore"
        case let stores where stores.count == 1:
            return "kvstore: \(stores[0]): \(cause) while reading the store: its file may be damaged; run `kvstore verify \(stores[0])` (if it finds nothing, this is a bug in kvstore)"
        case let stores:
            return "kvstore: \(stores.joined(separator: ", ")): \(cause) while reading the stores: one of their files may be damaged; run `kvstore verify` on each (if it finds nothing, this is a bug in kvstore)"
        }
    }

    private static func report(_ text: String) {
        let bytes = Array((text + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }
}
