import Testing
@testable import KVStore

/// Arrays nested `levels` deep around `value`.
private func nested(_ levels: Int, around value: Value) -> Value {
    var value = value
    for _ in 0..<levels { value = .array([value]) }
    return value
}

/// A key applied to an array maps it, one call per level of nesting without using up a component,
/// so the 512-component limit alone does not bound the calls: `f.f.…` over a record whose `f`
/// holds its own reference inside 500 arrays made about 256,000 nested calls and ended the process
/// with a stack overflow. An evaluation goes at most `KeyValuePath.maximumDepth` levels deep.
@Suite struct KeyPathDepthTests {
    @Test func keysThroughDeeplyNestedArraysOfReferencesAreRefused() throws {
        let (temporary, loop) = try TemporaryStore.holding([:], as: "node/loop")
        try temporary.store.setValue(nested(500, around: .reference(loop)), forKey: "f", of: loop)
        let text = String(repeating: "f.", count: KeyValuePath.maximumComponents - 1) + "f"
        let error = #expect(throws: KeyValueCodingError.self) { try temporary.store.value(forKeyPath: text, of: loop) }
        #expect(error?.code == .nestedTooDeeply)
        #expect(error?.description.contains("more than \(KeyValuePath.maximumDepth) levels") == true, "\(String(describing: error))")
    }

    /// The deepest evaluation a single record allows: 511 levels of arrays and dictionaries mapped
    /// by a key at the bottom, with the most components.
    @Test func theDeepestValueOfARecordIsStillMapped() throws {
        var innermost: Value = .dictionary(["x": 1])
        for _ in 0..<(KeyValueCodingError.maximumRecordNesting - 2) { innermost = .array([innermost]) }
        let (temporary, ref) = try TemporaryStore.holding(["deep": innermost], as: "doc/1")
        let mapped = try temporary.store.value(forKeyPath: "deep.x", of: ref)
        #expect(mapped == nested(KeyValueCodingError.maximumRecordNesting - 2, around: 1))

        try temporary.store.setValue(.reference(ref), forKey: "me", of: ref)
        let long = String(repeating: "me.", count: KeyValuePath.maximumComponents - 2) + "deep.x"
        #expect(try temporary.store.value(forKeyPath: long, of: ref) == mapped)
    }
}
