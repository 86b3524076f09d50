import Foundation
import Testing
@testable import KVStore

/// The Codable shapes beyond plain structs: special doubles, nested optionals, dictionaries keyed
/// by strings (dots and `$` included) and by ints, enums with associated values, classes that
/// encode their superclass, empty structs and single values at the top level.
@Suite struct CodableShapeTests {
    let encoder = ValueEncoder()
    let decoder = ValueDecoder()

    struct Numbers: Codable { var float: Float; var double: Double }

    @Test(arguments: [(Float.nan, Double.nan), (.infinity, -.infinity), (-0.0, -0.0),
                      (.leastNonzeroMagnitude, .leastNonzeroMagnitude), (.greatestFiniteMagnitude, .greatestFiniteMagnitude)])
    func specialFloatingPointValuesRoundTripBitForBit(float: Float, double: Double) throws {
        let value = try encoder.encode(Numbers(float: float, double: double))
        #expect(value == ["float": .double(Double(float)), "double": .double(double)])
        let back = try decoder.decode(Numbers.self, from: value)
        #expect(back.float.bitPattern == float.bitPattern)
        #expect(back.double.bitPattern == double.bitPattern)
    }

    struct Nested: Codable, Equatable { var count: Int?? }

    @Test func aNestedOptionalsInnerNilReadsBackAsNil() throws {
        #expect(try encoder.encodeRecord(Nested(count: .some(nil))) == [:])
        #expect(try decoder.decode(Nested.self, from: encoder.encode(Nested(count: .some(nil)))) == Nested(count: nil))
        #expect(try decoder.decode(Nested.self, from: encoder.encode(Nested(count: 3))) == Nested(count: 3))
    }

    struct Maps: Codable, Equatable { var byName: [String: Int]; var byNumber: [Int: String] }

    @Test func dictionariesKeyedByStringsAndIntsAreNestedDictionaries() throws {
        let maps = Maps(byName: ["a.b": 1, "": 2, "$x": 3], byNumber: [1: "one", -2: "minus two"])
        let value = try encoder.encode(maps)
        #expect(value == ["byName": ["a.b": 1, "": 2, "$x": 3], "byNumber": ["1": "one", "-2": "minus two"]])
        #expect(try decoder.decode(Maps.self, from: value) == maps)
    }

    enum Shape: Codable, Equatable { case circle(radius: Double), square(Int), empty }

    @Test func enumsWithAssociatedValuesRoundTrip() throws {
        let shapes: [Shape] = [.circle(radius: 2), .square(3), .empty]
        let value = try encoder.encode(shapes)
        #expect(value == [["circle": ["radius": 2.0]], ["square": ["_0": 3]], ["empty": [:]]])
        #expect(try decoder.decode([Shape].self, from: value) == shapes)
    }

    class Animal: Codable { var name = "" }
    final class Dog: Animal {
        var tricks = 0
        enum CodingKeys: String, CodingKey { case tricks }
        override init() { super.init() }
        required init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            tricks = try container.decode(Int.self, forKey: .tricks)
            try super.init(from: container.superDecoder())
        }
        override func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(tricks, forKey: .tricks)
            try super.encode(to: container.superEncoder())
        }
    }

    @Test func aSubclassEncodesItsSuperclassUnderSuper() throws {
        let dog = Dog()
        dog.name = "Rex"
        dog.tricks = 3
        let value = try encoder.encode(dog)
        #expect(value == ["tricks": 3, "super": ["name": "Rex"]])
        let back = try decoder.decode(Dog.self, from: value)
        #expect(back.name == "Rex" && back.tricks == 3)
        let missing = try #require(throws: ModelError.self) { try decoder.decode(Dog.self, from: ["tricks": 3]) }
        #expect(missing.description == "super: expected a dictionary, found null")
    }

    struct Empty: Codable, Equatable {}

    @Test func emptyStructsAndTopLevelSingleValues() throws {
        #expect(try encoder.encode(Empty()) == [:])
        #expect(try decoder.decode(Empty.self, from: [:]) == Empty())
        #expect(try encoder.encode(42) == 42)
        #expect(try encoder.encode(Int?.none) == .null)
        #expect(try decoder.decode(Int?.self, from: .null) == nil)
        let record = try #require(throws: ModelError.self) { try encoder.encodeRecord(42) }
        #expect(record.code == .notADictionary)
    }

    struct Tagged: StoredModel {
        static let kind = "tagged"
        var id: String
        var tags: Set<String>
    }

    @Test func aSetIsStoredInOneOrderSoThatEqualSetsAreEqualValues() throws {
        let words = (0..<40).map { "tag\($0)" }
        var roomy = Set<String>(minimumCapacity: 4096)
        roomy.formUnion(words)
        let tight = Set(words.reversed())
        try #require(Array(roomy) != Array(tight))   // equal sets, iterated in different orders
        #expect(try encoder.encode(roomy) == encoder.encode(tight))
        #expect(try encoder.encode(Set(["b", "a", "c"])) == ["a", "b", "c"])

        let t = try TemporaryStore()
        try t.store.insert(Tagged(id: "1", tags: roomy))
        let before = try t.store.journalEntries().count
        #expect(try t.store.save(Tagged(id: "1", tags: tight)).isEmpty)
        #expect(try t.store.journalEntries().count == before)
        #expect(try t.store.fetch(Tagged.self, id: "1")?.tags == tight)
    }

    enum Size: String, Codable { case small, medium, large }

    @Test func aDictionaryKeyedByOtherTypesIsStoredInKeyOrder() throws {
        let counts: [(UUID, Int)] = (0..<40).map { (UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", $0))!, $0) }
        var roomy = [UUID: Int](minimumCapacity: 4096)
        for (key, value) in counts { roomy[key] = value }
        let tight = Dictionary(uniqueKeysWithValues: counts.reversed())
        try #require(Array(roomy.keys) != Array(tight.keys))   // equal dictionaries, iterated in different orders
        #expect(try encoder.encode(roomy) == encoder.encode(tight))
        #expect(try decoder.decode([UUID: Int].self, from: encoder.encode(roomy)) == tight)
        let sizes: [Size: Int] = [.small: 1, .large: 3, .medium: 2]
        #expect(try encoder.encode(sizes) == ["large", 3, "medium", 2, "small", 1])
        #expect(try decoder.decode([Size: Int].self, from: encoder.encode(sizes)) == sizes)
    }
}
