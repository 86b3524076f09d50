import Testing
import KVStore
import KVStoreTemplates

/// Inputs the template fuzz target (`Tools/Fuzz`) found, kept as regression tests.
@Suite struct TemplateFuzzRegressionTests {
    /// The input as found (invalid UTF-8 included): `.&[[` `` `sum ]… `` ending in U+06DD, then
    /// `]]]`. Written back as `[[ path ]]` its tag kept a trailing space: the space after U+06DD (a
    /// prepended concatenation mark) joined it in one Character, so trimming by Character missed it.
    @Test func theFoundTemplateParsesAsItsCanonicalForm() throws {
        let input: [UInt8] = [
            0x2E, 0x26, 0x5B, 0x5B, 0x60, 0x73, 0x75, 0x6D, 0x20, 0x5D, 0xA4, 0xF5, 0x28, 0xA4, 0xA4, 0x9E,
            0x9E, 0xD1, 0x26, 0xD2, 0x9D, 0xA2, 0x5A, 0xAD, 0x96, 0xD7, 0xDB, 0x9D, 0x5D, 0x5D, 0x5D,
        ]
        let template = try Template(String(decoding: input, as: UTF8.self))
        guard case .value(let path, raw: false, _) = template.parts[1] else { Issue.record("no tag"); return }
        #expect(template.parts.count == 3 && template.parts[2] == .text("]"))
        let again = try Template("[[ \(path) ]]")
        guard case .value(let reparsed, raw: false, _) = again.parts.first else { Issue.record("no tag"); return }
        #expect(again.parts.count == 1 && reparsed == path)
    }

    @Test func spacesAroundAPathEndingInAPrependedMarkAreIgnored() throws {
        let parts = try Template("[[ name\u{06DD} ]]").parts
        #expect(parts == [.value(try KeyValuePath("name\u{06DD}"), raw: false, position: .init(line: 1, column: 1))])
    }
}
