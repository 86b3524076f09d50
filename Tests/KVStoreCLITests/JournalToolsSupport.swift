import Foundation
import Testing
@testable import KVStore

extension TestDirectory {
    /// Runs `kvstore arguments…` here with standard input read from the file `input` (when
    /// given) and standard output written to the file `output` (binary streams).
    @discardableResult
    func kvstore(_ arguments: [String], input: String? = nil, output: String) throws -> CommandResult {
        try KVStoreExecutable.run(
            arguments, in: self, input: input.map { URL(fileURLWithPath: path($0)) }, output: URL(fileURLWithPath: path(output)))
    }

    /// Exports `store`'s journal (from `since`; by default from its first entry) to the file `name` here.
    func export(_ store: String, since: UInt64? = nil, to name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try kvstore(["journal", "export", store] + (since.map { ["--since", String($0)] } ?? []), output: name)
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result)", sourceLocation: sourceLocation)
    }

    func bytes(_ name: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path(name)))) }

    func write(_ bytes: [UInt8], to name: String) throws { try Data(bytes).write(to: URL(fileURLWithPath: path(name))) }

    /// Opens the store at `name` in this process for the duration of `body` (the store is
    /// released afterwards, so the tool sees everything it wrote).
    func withStore<T>(_ name: String, _ body: (Store) throws -> T) throws -> T {
        try body(try Store(path: path(name)))
    }

    /// Runs `kvstore arguments…` and expects a failure reported as one line on standard error
    /// containing `message`, with nothing on standard output.
    func fail(_ arguments: String..., status: Int32 = 1, with message: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try KVStoreExecutable.run(arguments, in: self)
        #expect(result.status == status, "\(arguments): \(result)", sourceLocation: sourceLocation)
        #expect(result.stdout.isEmpty, "\(arguments): \(result)", sourceLocation: sourceLocation)
        #expect(result.stderr.hasPrefix("kvstore: ") && result.stderr.contains(message), "\(arguments): \(result)", sourceLocation: sourceLocation)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments): \(result)", sourceLocation: sourceLocation)
    }
}

/// A source store at `name` whose journal holds every value type and every change kind, one
/// commit each: inserts, settings of keys and nested key paths, removals, a record deletion, and
/// array insertion, removal and replacement through `mutableArray`.
func makeSource(_ dir: TestDirectory, _ name: String) throws {
    let ada = try RecordRef("person/ada"), bob = try RecordRef("person/bob"), note = try RecordRef("note/1")
    let values: [String: Value] = try TypedJSON.dictionary(from: #"""
        {"name":"Ada","born":1815,"height":1.65,"alive":false,"photo":{"$bytes":"AAH/"},
         "seen":{"$date":"2016-07-15T00:00:00.25Z"},"ratio":{"$double":"Infinity"},"friend":{"$ref":"person/bob"},
         "address":{"city":"London","geo":{"lat":51.5},"$x":{"$dict":{"$y":null}}},"tags":["poet"]}
        """#)
    let changes: [(WriteTransaction) throws -> Void] = [
        { try $0.insert(values, as: ada) },
        { try $0.insert(["name": "Bob"], as: bob) },
        { try $0.setValue("Ada Lovelace", forKey: "name", of: ada) },
        { try $0.setValue(48.8, forKeyPath: "address.geo.lat", of: ada) },
        { try $0.removeValue(forKey: "alive", of: ada) },
        { try $0.insert(["text": "gone soon"], as: note) },
        { try $0.delete(note) },
        { try $0.mutableArray(forKey: "tags", of: ada).append("mathematician") },
        { try $0.mutableArray(forKey: "tags", of: ada).insert(["a", "b"], at: [0, 2]) },
        { try $0.mutableArray(forKey: "tags", of: ada).remove(at: [1]) },
        { txn in
            try txn.mutableArray(forKey: "tags", of: ada).replace(at: [0], with: ["A"])
            try txn.setValue("Robert", forKey: "name", of: bob)
        },
    ]
    try dir.withStore(name) { store in
        for change in changes { try store.write(change) }
    }
}
