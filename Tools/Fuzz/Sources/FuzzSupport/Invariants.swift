/// Stops the fuzzer with `message` when `condition` is false: libFuzzer keeps the input as a crash.
public func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("invariant broken: \(message())") }
}

/// An error message as the project's rules want it: not empty, and one line of its own.
///
/// Most decoders quote the input they refuse verbatim (a key, a key path, an escape), and the
/// command line flattens a message to one line when it prints it (`kvstore: …`); so when the input
/// itself holds a line break (`quoting` given), only a line break the message adds is wrong — which
/// this cannot tell apart, so it then checks only that the message is not empty. Errors documented
/// as one line whatever the input (``JournalStreamError``) pass no input.
public func requireOneLine(_ message: String, from what: String, quoting input: [UInt8]? = nil) {
    require(!message.isEmpty, "\(what) threw an error with an empty message")
    if let input, String(decoding: input, as: UTF8.self).contains(where: \.isNewline) { return }
    require(!message.contains(where: \.isNewline), "\(what) threw an error message of several lines: \(message)")
}
