import ArgumentParser
import KVStore

/// A problem the tool finds itself (rather than the library), worded as one line for a terminal.
struct CommandError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

extension ParsableCommand {
    /// Runs `body`, reporting any error it throws as one line `kvstore: <message>` on standard error
    /// and exiting with status 1, without ArgumentParser's usage text.
    ///
    /// ```swift
    /// func run() throws {
    ///     try reportingErrors {
    ///         let store = try StoreAccess.openForReading(path)
    ///         …
    ///     }
    /// }
    /// ```
    /// Library errors (``StoreError``, ``KeyValueCodingError``, ``RecordRefError``…) already name the
    /// path, record or key involved, so their `description` is the message.
    func reportingErrors(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let exit as ExitCode {
            throw exit
        } catch {
            StandardError.report(pointingToVerify(CommandMessage.text(of: error), error))
            throw ExitCode.failure
        }
    }

    /// The error of a store that opened but whose contents are damaged (a record that does not
    /// decode, a damaged page LMDB met) ends by pointing to `kvstore verify`, which lists every
    /// problem; verify's own errors do not.
    private func pointingToVerify(_ message: String, _ error: any Error) -> String {
        guard !(self is VerifyCommand), let error = error as? StoreError, error.code == .corrupt || error.code == .damaged,
              let path = error.path, StoreAccess.opened.contains(path), !message.contains("kvstore verify") else { return message }
        return "\(message); run `kvstore verify \(path)`"
    }
}
