import Foundation
import KVStore
import Testing

/// Where typed JSON is documented — the storage format article, the command line's reference and
/// ``TypedJSON``'s doc comment —
/// every form `$date` reads is stated, with examples that read as they say: the numeric form
/// (seconds since 2001-01-01T00:00:00Z) was accepted but documented nowhere.
@Suite struct TypedJSONDocumentationTests {
    /// The examples "`{"$date":N}` is `ISO`" in `text` (line breaks and comment markers ignored).
    static func numericDateExamples(in text: String) -> [(number: String, iso: String)] {
        let flat = text.replacingOccurrences(of: "\n///", with: " ").replacingOccurrences(of: "\n", with: " ")
        let pattern = /`\{"\$date":(-?[0-9][0-9.e+-]*)\}`\s+is\s+`([0-9T:.Z-]+)`/
        return flat.matches(of: pattern).map { (String($0.output.1), String($0.output.2)) }
    }

    static var sources: [(name: String, text: String)] {
        get throws {
            try ["Sources/KVStore/KVStore.docc/StorageFormat.md", "Tools/kvstore/README.md", "Sources/KVStore/JSON/TypedJSON.swift"].map {
                ($0, try packageText($0))
            }
        }
    }

    @Test func theNumericDateFormIsDocumentedWithExamplesThatHold() throws {
        for (name, text) in try Self.sources {
            let examples = Self.numericDateExamples(in: text)
            #expect(examples.count >= 2, "\(name) documents {\"$date\": N} with examples")
            #expect(text.contains("seconds since") && text.contains("2001-01-01T00:00:00Z"), "\(name) says what N counts from")
            for (number, iso) in examples {
                let numeric = try TypedJSON.value(from: #"{"$date":\#(number)}"#)
                let text = try TypedJSON.value(from: #"{"$date":"\#(iso)"}"#)
                #expect(numeric == text, "\(name): {\"$date\":\(number)} is \(iso)")
                #expect(TypedJSON.string(from: numeric) == #"{"$date":"\#(iso)"}"#, "\(name): written back as text")
            }
        }
    }
}
