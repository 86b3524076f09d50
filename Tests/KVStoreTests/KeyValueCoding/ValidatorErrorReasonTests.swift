import Foundation
import Testing
@testable import KVStore

/// A validator's error reaches the ``KeyValueCodingError`` as its reason: a Foundation error's
/// localized description, not Linux's dump of it.
@Suite struct ValidatorErrorReasonTests {
    let t: TemporaryStore

    init() throws { t = try TemporaryStore() }

    @Test func aValidatorsFoundationErrorGivesItsReasonNotItsDump() throws {
        var kind = try Kind("person")
        kind.validators["name"] = { _, _, _ in
            throw NSError(domain: "app", code: 3, userInfo: [NSLocalizedDescriptionKey: "a name must not be empty"])
        }
        try t.store.register(kind)
        let ada = ref("person/ada")
        try t.store.insert([:], as: ada)
        let error = try #require(throws: KeyValueCodingError.self) {
            try t.store.write { try $0.validatingSetValue("", forKey: "name", of: ada) }
        }
        #expect(error.description == "person/ada: invalid value for key 'name': a name must not be empty")
    }
}
