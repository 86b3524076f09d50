import Foundation
import Testing
@testable import KVStore

@Suite struct UUIDTextTests {
    @Test func lowercasedTextIsFoundationsTextInLowercase() {
        for _ in 0..<200 {
            let id = UUID()
            #expect(id.lowercasedText == id.uuidString.lowercased())
        }
        let edges = UUID(uuid: (0, 0xFF, 0x0F, 0xF0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0xAB, 0xCD))
        #expect(edges.lowercasedText == "00ff0ff0-0102-0304-0506-0708090aabcd")
    }
}
