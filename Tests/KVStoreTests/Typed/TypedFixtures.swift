import Foundation
@testable import KVStore

/// Models of the typed-layer tests.
struct Contact: StoredModel, Hashable {
    static let kind = "contact"
    var id: String
    var name: String
    var email: String?
    var age: Int?
    var address: Address?

    static var recordKeys: [PartialKeyPath<Contact>: String] {
        [\.name: CodingKeys.name.stringValue, \.email: CodingKeys.email.stringValue, \.age: "age",
         \.address: "address", \.address?.city: "address.city"]
    }
}

/// A newer version of ``Contact``: the same kind, with a key the older one does not have.
struct ContactV2: StoredModel, Hashable {
    static let kind = "contact"
    var id: String
    var name: String
    var email: String?
    var nickname: String?
}

struct Address: Codable, Hashable, Sendable {
    var city: String
    var zip: String?
}

enum Status: String, Codable, Hashable, Sendable, CaseIterable { case draft, sent, paid }
enum Priority: Int, Codable, Hashable, Sendable, CaseIterable { case low = 1, normal = 5, high = 9 }

/// A model with a property of every mapped type.
struct Sample: Codable, Hashable, Sendable {
    struct Numbers: Codable, Hashable, Sendable {
        var int: Int, int8: Int8, int16: Int16, int32: Int32, int64: Int64
        var uint: UInt, uint8: UInt8, uint16: UInt16, uint32: UInt32, uint64: UInt64
        var double: Double, float: Float
    }
    struct Details: Codable, Hashable, Sendable {
        var text: String
        var flag: Bool
        var when: Date
        var blob: Data
        var link: URL
        var token: UUID
        var owner: RecordRef?
    }
    var numbers: Numbers
    var details: Details
    var status: Status
    var priority: Priority
    var tags: [String]
    var scores: [Int?]
    var note: String?
    var address: Address?
    var addresses: [Address]
}

/// Invoices reference their customer and hold nested values, for error paths.
struct Invoice: StoredModel, Hashable {
    static let kind = "invoice"
    var id: Int
    var amount: Int
    var status: Status
    var customer: Customer
    var lines: [Line]

    struct Customer: Codable, Hashable { var name: String; var address: Address }
    struct Line: Codable, Hashable { var item: String; var quantity: UInt8 }
}

/// A task as the third version of an app stores it: `title` was renamed `name`, `priority` added.
struct TaskV3: StoredModel, Hashable {
    static let kind = "task"
    var id: String
    var name: String
    var priority: Int
    var done: Bool

    static var keyAliases: [String: [String]] { ["name": ["label", "title"]] }
    static var defaultValues: [String: Value] { ["priority": 0] }
    static var recordKeys: [PartialKeyPath<TaskV3>: String] { [\.name: "name", \.priority: "priority"] }
}
