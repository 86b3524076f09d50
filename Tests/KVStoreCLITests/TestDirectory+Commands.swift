import Foundation
import KVStore
import LMDB
import Testing

extension TestDirectory {
    /// Runs `kvstore arguments…` here with the text `input` as its standard input.
    @discardableResult
    func kvstore(_ arguments: [String], input: String) throws -> CommandResult {
        try KVStoreExecutable.run(arguments, in: self, input: inputFile(input))
    }

    /// A file in the outputs directory holding `text`, to give a command as its standard input.
    private func inputFile(_ text: String) throws -> URL {
        let url = outputs.appendingPathComponent("\(UUID().uuidString).in")
        try Data(text.utf8).write(to: url)
        return url
    }

    /// Runs `kvstore arguments…` here and expects the one-line failure every error gives:
    /// status 1, nothing on standard output, `kvstore: …` containing `message` on standard error,
    /// without control characters (those from input are written escaped).
    @discardableResult
    func fail(
        _ arguments: [String], input: String? = nil, says message: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> CommandResult {
        let result = try KVStoreExecutable.run(arguments, in: self, input: input.map(inputFile))
        #expect(result.status == 1, "\(arguments): \(result)", sourceLocation: sourceLocation)
        #expect(result.stdout.isEmpty, "\(arguments): \(result)", sourceLocation: sourceLocation)
        #expect(result.stderr.hasPrefix("kvstore: ") && result.stderr.filter { $0 == "\n" }.count == 1
                && result.stderr.hasSuffix("\n"), "one line: \(result)", sourceLocation: sourceLocation)
        #expect(result.stderr.contains(message), "\(arguments): \(result)", sourceLocation: sourceLocation)
        #expect(!result.stderr.dropLast().unicodeScalars.contains { $0.properties.generalCategory == .control },
                "no control character reaches the terminal: \(arguments): \(result)", sourceLocation: sourceLocation)
        return result
    }

    /// Writes `text` to the file `name` here. - Returns: its path.
    @discardableResult
    func write(_ text: String, to name: String) throws -> String {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path(name)))
        return path(name)
    }

    /// Rewrites the store's format version, as a newer kvstore would have written it.
    func setFormatVersion(_ version: UInt32, of store: String) throws {
        let environment = try Environment.open(path: store)
        try environment.write { txn in
            let meta = try txn.openDatabase("meta", create: false)
            try txn.put(Array("format".utf8), withUnsafeBytes(of: version.littleEndian, Array.init), in: meta)
        }
    }
}
