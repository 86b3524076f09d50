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

    /// `@sum.friend.friend.…name`, 3,120 components following a reference each (the fuzz target
    /// under AddressSanitizer; 10,000 in a release build): evaluation makes a call per component,
    /// and the process died of a stack overflow. A path has at most 512 components: more is one
    /// `invalidKeyPath` error, quoting only the path's start, from parsing and evaluation alike.
    @Test(arguments: [3_120, 10_000, 60_000])
    func aPathOfThousandsOfComponentsIsRefused(_ count: Int) throws {
        let text = "@sum." + String(repeating: "friend.", count: count) + "name"
        let parsed = #expect(throws: KeyValueCodingError.self) { try KeyValuePath(text) }
        #expect(parsed?.code == .invalidKeyPath)
        #expect(parsed?.description.contains("it has \(count + 2) components; a key path has at most 512") == true)
        #expect((parsed?.description.count ?? .max) < 200, "the message quotes only the path's start")

        let (temporary, ada) = try TemporaryStore.holding(["name": "Ada"], as: "person/ada")
        try temporary.store.setValue(.reference(ada), forKey: "friend", of: ada)
        for evaluate in [
            { (txn: ReadTransaction) throws -> Value? in try txn.value(forKeyPath: text, of: ada) },
            { (txn: ReadTransaction) throws -> Value? in try txn.value(forKeyPath: text, ofKind: "person") },
        ] {
            let error = #expect(throws: KeyValueCodingError.self) { _ = try temporary.store.read(evaluate) }
            #expect(error?.code == .invalidKeyPath)
        }
        let components = Array(repeating: KeyValuePath.Component.key("friend"), count: count)
        #expect(throws: KeyValueCodingError.self) { try KeyValuePath(components: components) }
    }

    /// The longest path allowed is evaluated: 512 components through a reference cycle.
    @Test func aPathOfTheMostComponentsIsEvaluated() throws {
        let (temporary, ada) = try TemporaryStore.holding(["name": "Ada"], as: "person/ada")
        try temporary.store.setValue(.reference(ada), forKey: "friend", of: ada)
        let text = String(repeating: "friend.", count: KeyValuePath.maximumComponents - 1) + "name"
        #expect(try KeyValuePath(text).components.count == 512)
        #expect(try temporary.store.value(forKeyPath: text, of: ada) == "Ada")
    }
}
