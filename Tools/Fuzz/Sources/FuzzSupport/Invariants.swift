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

/// Decodes `bytes` with `decode`. On failure checks the error's message and returns nil; on
/// success checks the round trip — encoding the result and decoding that gives an equal value, and
/// encoding again gives the same bytes — and returns the decoded value.
public func requireRoundTrip<T: Equatable, Failure: Error & CustomStringConvertible>(
    _ bytes: [UInt8], _ what: String,
    decode: ([UInt8]) throws(Failure) -> T, encode: (T) -> [UInt8]
) -> T? {
    let decoded: T
    do {
        decoded = try decode(bytes)
    } catch {
        requireOneLine(error.description, from: what, quoting: bytes)
        return nil
    }
    let encoded = encode(decoded)
    do {
        let again = try decode(encoded)
        require(again == decoded, "\(what): decode(encode(x)) differs from x: \(decoded) became \(again)")
        require(encode(again) == encoded, "\(what): encoding \(decoded) is not stable")
    } catch {
        require(false, "\(what): the encoding of a decoded value does not decode: \(error)")
    }
    return decoded
}
