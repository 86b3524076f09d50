import ArgumentParser

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
            StandardError.report(CommandMessage.text(of: error))
            throw ExitCode.failure
        }
    }
}
