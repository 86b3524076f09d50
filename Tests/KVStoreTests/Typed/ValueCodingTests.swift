import Foundation
import Testing
@testable import KVStore

/// The Codable bridge: how each Swift type maps to a value, and every way decoding can fail.
@Suite struct ValueCodingTests {
    let encoder = ValueEncoder()
    let decoder = ValueDecoder()

    @Test func scalarsMapToTheStoresValues() throws {
        let date = Date(timeIntervalSince1970: 1_468_540_800.25)
        let uuid = UUID()
        #expect(try encoder.encode("Ada") == .string("Ada"))
        #expect(try encoder.encode(true) == .bool(true))
        #expect(try encoder.encode(Int8(-5)) == .int(-5))
        #expect(try encoder.encode(UInt32.max) == .int(Int64(UInt32.max)))
        #expect(try encoder.encode(1.5) == .double(1.5))
        #expect(try encoder.encode(Float(0.5)) == .double(0.5))
        #expect(try encoder.encode(date) == .date(date))
        #expect(try encoder.encode(Data([1, 2])) == .bytes(Data([1, 2])))
        #expect(try encoder.encode(URL(string: "https://example.com/a?b=1")!) == .string("https://example.com/a?b=1"))
        #expect(try encoder.encode(uuid) == .string(uuid.uuidString.lowercased()))
        #expect(try encoder.encode(ref("person/ada")) == .reference(ref("person/ada")))
        #expect(try encoder.encode(Status.sent) == .string("sent"))
        #expect(try encoder.encode(Priority.high) == .int(9))
        #expect(try encoder.encode([1, 2]) == .array([1, 2]))
        #expect(try encoder.encode(["a", nil] as [String?]) == .array(["a", .null]))
        #expect(try encoder.encode(["k": 1]) == .dictionary(["k": 1]))
    }

    @Test func nilOptionalsLeaveTheirKeyOut() throws {
        #expect(try encoder.encode(Address(city: "London", zip: nil)) == .dictionary(["city": "London"]))
        #expect(try encoder.encode(String?.none) == .null)
    }

    @Test func anExplicitNullReadsAsNilForAnOptional() throws {
        let address = try decoder.decode(Address.self, from: ["city": "London", "zip": .null])
        #expect(address == Address(city: "London", zip: nil))
        #expect(try decoder.decode([Int?].self, from: [1, .null]) == [1, nil])
    }

    @Test func unknownKeysAreIgnored() throws {
        #expect(try decoder.decode(Address.self, from: ["city": "Paris", "country": "FR"]) == Address(city: "Paris"))
    }

    @Test func doublesReadInts() throws {
        #expect(try decoder.decode(Double.self, from: .int(3)) == 3)
        #expect(try decoder.decode(Float.self, from: .int(3)) == 3)
    }

    @Test func aRecordIsADictionaryWithoutTopLevelNulls() throws {
        struct WithNull: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: AnyKey.self)
                try container.encodeNil(forKey: AnyKey("gone"))
                try container.encode(1, forKey: AnyKey("kept"))
            }
        }
        #expect(try encoder.encodeRecord(WithNull()) == ["kept": 1])
        let error = try #require(throws: ModelError.self) { try encoder.encodeRecord([1, 2]) }
        #expect(error.code == .notADictionary)
    }

    // MARK: Errors

    @Test func aTypeMismatchNamesTheKeyPathAndTheValueFound() throws {
        let value: Value = ["amount": 1, "status": "sent", "lines": [],
                            "customer": ["name": "Ada", "address": ["city": "London", "zip": 42]]]
        let error = try #require(throws: ModelError.self) { try decoder.decode(Invoice.self, from: value.dictionaryValue!.merging(["id": 1]) { $1 }) }
        #expect(error.code == .typeMismatch)
        #expect(error.keyPath == "customer.address.zip")
        #expect(error.description == "customer.address.zip: expected a string, found integer 42")
    }

    @Test func aMissingKeyIsNamed() throws {
        let error = try #require(throws: ModelError.self) { try decoder.decode(Address.self, from: ["zip": "NW1"]) }
        #expect(error.code == .missingKey)
        #expect(error.description == "city: missing, expected a string")
    }

    @Test func arrayElementsAreNamedByPosition() throws {
        let lines: Value = [["item": "pen", "quantity": 1], ["item": "ink", "quantity": 300]]
        let error = try #require(throws: ModelError.self) { try decoder.decode([Invoice.Line].self, from: lines) }
        #expect(error.code == .valueOutOfRange)
        #expect(error.description == "[1].quantity: 300 does not fit in UInt8")
    }

    @Test func integersOutOfRangeAreRefused() throws {
        func check<I: Decodable & FixedWidthInteger>(_ type: I.Type, _ stored: Int64) throws {
            let error = try #require(throws: ModelError.self) { try decoder.decode(type, from: .int(stored)) }
            #expect(error.code == .valueOutOfRange)
            #expect(error.message == "\(stored) does not fit in \(type)")
        }
        try check(Int8.self, 200)
        try check(Int16.self, Int64(Int16.max) + 1)
        try check(Int32.self, Int64(Int32.min) - 1)
        try check(UInt.self, -1)
        try check(UInt8.self, 256)
        try check(UInt16.self, -3)
        try check(UInt32.self, Int64(UInt32.max) + 1)
        try check(UInt64.self, .min)
    }

    @Test func integersAtTheirLimitsRoundTrip() throws {
        #expect(try decoder.decode(Int8.self, from: encoder.encode(Int8.min)) == .min)
        #expect(try decoder.decode(UInt32.self, from: encoder.encode(UInt32.max)) == .max)
        #expect(try decoder.decode(UInt64.self, from: encoder.encode(UInt64(Int64.max))) == UInt64(Int64.max))
        #expect(try decoder.decode(Int64.self, from: encoder.encode(Int64.min)) == .min)
    }

    @Test func aUInt64PastInt64IsAnEncodingError() throws {
        struct Counter: Encodable { var hits: UInt64 }
        let error = try #require(throws: ModelError.self) { try encoder.encode(Counter(hits: .max)) }
        #expect(error.code == .valueOutOfRange)
        #expect(error.description == "hits: 18446744073709551615 does not fit in a stored int (Int64)")
    }

    @Test func aFloatOutOfRangeIsRefused() throws {
        let error = try #require(throws: ModelError.self) { try decoder.decode(Float.self, from: .double(1e300)) }
        #expect(error.code == .valueOutOfRange)
    }

    @Test func integersDoNotReadDoublesOrStrings() throws {
        let double = try #require(throws: ModelError.self) { try decoder.decode(Int.self, from: .double(1.5)) }
        #expect(double.description == "expected an integer, found double 1.5")
        let string = try #require(throws: ModelError.self) { try decoder.decode(Int.self, from: "12") }
        #expect(string.code == .typeMismatch)
    }

    @Test func theStoresOwnTypesAreCheckedToo() throws {
        #expect(throws: ModelError.self) { try decoder.decode(Date.self, from: "2016-07-15") }
        #expect(throws: ModelError.self) { try decoder.decode(Data.self, from: "AAE=") }
        #expect(throws: ModelError.self) { try decoder.decode(RecordRef.self, from: "person/ada") }
        #expect(throws: ModelError.self) { try decoder.decode(Bool.self, from: 1) }
        let uuid = try #require(throws: ModelError.self) { try decoder.decode(UUID.self, from: "not-a-uuid") }
        #expect(uuid.code == .invalidValue)
        let url = try #require(throws: ModelError.self) { try decoder.decode(URL.self, from: "") }
        #expect(url.code == .invalidValue)
    }

    @Test func aDateThatIsNotFiniteIsDescribedNotATrap() throws {
        let nan = try #require(throws: ModelError.self) { try decoder.decode(String.self, from: .date(Date(timeIntervalSinceReferenceDate: .nan))) }
        #expect(nan.description == "expected a string, found date NaN")
        let far = try #require(throws: ModelError.self) { try decoder.decode(String.self, from: .date(Date(timeIntervalSinceReferenceDate: 1e300))) }
        #expect(far.description == "expected a string, found date 1e+300")
        #expect(KeyStamp(time: Date(timeIntervalSinceReferenceDate: -.infinity), origin: UUID(uuidString: "00000000-0000-0000-0000-000000000001")!)
            .description == "-Infinity 00000000-0000-0000-0000-000000000001")
    }

    @Test func anUnknownRawValueIsAnInvalidValueAtItsPath() throws {
        let error = try #require(throws: ModelError.self) {
            try decoder.decode(Invoice.self, from: ["id": 1, "amount": 1, "status": "lost", "lines": [],
                                                    "customer": ["name": "Ada", "address": ["city": "London"]]])
        }
        #expect(error.code == .invalidValue)
        #expect(error.keyPath == "status")
    }

    @Test func aContainerOfTheWrongShapeIsAMismatch() throws {
        let error = try #require(throws: ModelError.self) { try decoder.decode(Address.self, from: ["London"]) }
        #expect(error.description == "expected a dictionary, found an array of 1 elements")
        let array = try #require(throws: ModelError.self) { try decoder.decode([Int].self, from: ["a": 1]) }
        #expect(array.description == "expected an array, found a dictionary")
    }
}

extension ValueCodingTests {
    struct Price: Codable, Equatable { var amount: Decimal }

    @Test func decimalsAreStoredAsTheirExactDecimalText() throws {
        let price = Price(amount: try #require(Decimal(string: "12.345")))
        #expect(try encoder.encode(price) == ["amount": "12.345"])
        #expect(try decoder.decode(Price.self, from: ["amount": "12.345"]) == price)
        #expect(try decoder.decode(Price.self, from: ["amount": "-0.000001"]).amount == Decimal(string: "-0.000001"))
        // Written by key-value coding as a number.
        #expect(try decoder.decode(Price.self, from: ["amount": 12]) == Price(amount: 12))
        #expect(try decoder.decode(Price.self, from: ["amount": 0.5]) == Price(amount: Decimal(string: "0.5")!))
        let error = try #require(throws: ModelError.self) { try decoder.decode(Price.self, from: ["amount": "12abc"]) }
        #expect(error.description == "amount: \"12abc\" is not a decimal number")
        let mismatch = try #require(throws: ModelError.self) { try decoder.decode(Price.self, from: ["amount": true]) }
        #expect(mismatch.description == "amount: expected a decimal number, found bool true")
    }
}

/// A coding key from any string.
struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
