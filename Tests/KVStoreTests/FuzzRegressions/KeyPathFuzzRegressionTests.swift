import Testing
@testable import KVStore

/// Inputs the key-path fuzz target (`Tools/Fuzz`) found, kept as regression tests.
@Suite struct KeyPathFuzzRegressionTests {
    /// Bytes A9 D8 82 2E: an invalid byte, U+0602 (a prepended mark), then `.`. U+0602 and the dot
    /// form one Character, so splitting by Character kept the dot inside a key: the path parsed as
    /// one key containing `.`, which `init(components:)` and record keys refuse.
    @Test func aDotAfterAPrependedMarkSeparatesKeys() throws {
        let input: [UInt8] = [0xA9, 0xD8, 0x82, 0x2E]
        let text = String(decoding: input, as: UTF8.self)
        let error = #expect(throws: KeyValueCodingError.self) { try KeyValuePath(text) }
        #expect(error?.code == .invalidKeyPath)  // a trailing '.'

        let path = try KeyValuePath("a\u{0602}.b")
        #expect(path.components == [.key("a\u{0602}"), .key("b")])
        #expect(try KeyValuePath(components: path.components) == path)
        #expect(path.description == "a\u{0602}.b")
    }

    /// The store sets through such a path as it parses it, and a replica applies its journal entry
    /// the same way.
    @Test func aSetThroughSuchAPathNamesTheNestedKey() throws {
        let (temporary, ref) = try TemporaryStore.holding(["a\u{0602}": ["b": 1]], as: "doc/1")
        try temporary.store.write { try $0.setValue(2, forKeyPath: "a\u{0602}.b", of: ref) }
        #expect(try temporary.store.read { try $0.value(forKeyPath: "a\u{0602}.b", of: ref) } == 2)
        let entry = try #require(try temporary.store.read { try $0.journalEntries(from: 1) }.last)
        #expect(entry.shapeProblem == nil)
    }
}
