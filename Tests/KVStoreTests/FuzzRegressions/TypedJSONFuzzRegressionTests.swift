import Testing
@testable import KVStore

/// Inputs the typed-json fuzz target (`Tools/Fuzz`) found, kept as regression tests.
@Suite struct TypedJSONFuzzRegressionTests {
    /// `{"$r\f":"p!ers4n/ada"}`: the unknown tag's name, decoded, held a form feed, and the error
    /// message quoted it raw — a line break in a message the input wrote on one line.
    @Test func aQuotedControlCharacterIsEscapedInTheMessage() {
        let input: [UInt8] = [
            0x7B, 0x22, 0x24, 0x72, 0x5C, 0x66, 0x22, 0x3A, 0x22, 0x70, 0x21, 0x65, 0x72, 0x73, 0x34, 0x6E,
            0x2F, 0x61, 0x64, 0x61, 0x22, 0x7D,
        ]
        let error = #expect(throws: TypedJSONError.self) { try TypedJSON.value(from: input) }
        #expect(error?.problem == #"unknown tag '$r\u{0C}' (write a dictionary whose only key starts with '$' as {"$dict":{...}})"#)
    }

    /// The same for every message that quotes decoded text: a key, a `$date`, a `$ref`.
    @Test(arguments: [
        (#"{"a\n":1,"a\n":2}"#, #"duplicate key 'a\n' in object"#),
        (#"{"$date":"2016\r07"}"#, #"invalid $date '2016\r07', expected ISO 8601 like 2016-07-15T00:00:00Z"#),
        (#"{"$ref":"a\u2028b"}"#, #"invalid $ref: invalid record reference 'a\u{2028}b': a record reference is KIND/ID, with a '/'"#),
    ])
    func everyQuotedLineBreakIsEscaped(input: String, problem: String) {
        let error = #expect(throws: TypedJSONError.self) { try TypedJSON.value(from: input) }
        #expect(error?.problem == problem)
        #expect(error?.description.contains(where: \.isNewline) == false)
    }
}
