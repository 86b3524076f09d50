import Foundation
import Testing
@testable import KVStore

/// A declared `double` key keeps ints as doubles; a declared `int` key takes a double with an
/// integral value as an int and refuses any other.
@Suite struct DeclaredNumberTypeTests {
    let t: TemporaryStore
    let m = ref("measure/1")

    init() throws {
        t = try TemporaryStore()
        try t.store.write { try $0.declare(try Kind("measure", keys: ["score": .double, "count": .int])) }
        try t.store.insert(["score": 1, "count": 2.0], as: m)
    }

    @Test func anIntForADoubleKeyIsStoredAsADouble() throws {
        #expect(try t.store.record(m) == ["score": .double(1), "count": .int(2)])
        try t.store.setValue(3, forKey: "score", of: m)
        #expect(try t.store.value(forKey: "score", of: m) == .double(3))
    }

    @Test func anIntegralDoubleForAnIntKeyIsStoredAsAnIntAndAnyOtherIsRefused() throws {
        try t.store.setValue(.double(-4), forKey: "count", of: m)
        #expect(try t.store.value(forKey: "count", of: m) == .int(-4))
        for refused: Value in [.double(2.5), .double(.infinity), .double(1e30)] {
            let error = try #require(throws: KeyValueCodingError.self) { try t.store.setValue(refused, forKey: "count", of: m) }
            #expect(error.code == .typeMismatch)
        }
        #expect(try t.store.value(forKey: "count", of: m) == .int(-4))
    }
}
