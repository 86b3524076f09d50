import Foundation
@testable import kvstore
import KVStore
import Testing

/// The tool's one-line messages for Foundation errors.
@Suite struct ErrorReasonCommandTests {
    /// Foundation errors (NSError, CocoaError) print their reason, not Linux's dump of them.
    @Test func aFoundationErrorPrintsItsReason() throws {
        let error = NSError(domain: "app", code: 3, userInfo: [NSLocalizedDescriptionKey: "a name must not be empty"])
        #expect(CommandMessage.text(of: error) == "a name must not be empty")
        let validation = KeyValueCodingError.validationFailed(key: "name", reason: ErrorReason.text(of: error), ref: try RecordRef("person/ada"))
        #expect(CommandMessage.text(of: validation) == "person/ada: invalid value for key 'name': a name must not be empty")
        let cocoa = CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: "/nowhere"])
        #expect(!CommandMessage.text(of: cocoa).contains("Error Domain="))
    }
}
