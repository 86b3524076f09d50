import Foundation
import Testing
@testable import KVStore

@Suite struct TypedJSONTests {
    @Test(arguments: ValueSamples.all)
    func roundTripsEveryValue(_ value: Value) throws {
        let compact = TypedJSON.string(from: value)
        #expect(try TypedJSON.value(from: compact) == value, "\(compact)")
        #expect(try TypedJSON.value(from: Array(compact.utf8)) == value)
        let pretty = TypedJSON.string(from: value, pretty: true)
        #expect(try TypedJSON.value(from: pretty) == value, "\(pretty)")
        // dump → load → dump is byte-identical.
        #expect(TypedJSON.string(from: try TypedJSON.value(from: compact)) == compact)
        #expect(TypedJSON.string(from: try TypedJSON.value(from: pretty), pretty: true) == pretty)
    }

    @Test(arguments: [
        (.null, "null"), (true, "true"), (false, "false"),
        (0, "0"), (-42, "-42"), (.int(.max), "9223372036854775807"), (.int(.min), "-9223372036854775808"),
        (1.0, "1.0"), (-0.0, "-0.0"), (0.1, "0.1"), (1e20, "1e+20"), (1e-7, "1e-07"), (123.456, "123.456"),
        (.double(.leastNonzeroMagnitude), "5e-324"),
        (.double(.nan), #"{"$double":"NaN"}"#),
        (.double(.infinity), #"{"$double":"Infinity"}"#),
        (.double(-.infinity), #"{"$double":"-Infinity"}"#),
        ("", #""""#), ("a\"b\\c/", #""a\"b\\c/""#),
        ("\n\r\t\u{8}\u{C}\u{0}\u{1F}\u{7F}", #""\n\r\t\b\f\u0000\u001f\#u{7F}""#),
        ("é😀\u{2028}", "\"é😀\u{2028}\""),
        (.bytes(Data()), #"{"$bytes":""}"#),
        (.bytes(Data([0, 1, 2, 0xFF])), #"{"$bytes":"AAEC/w=="}"#),
        (.reference(try! RecordRef("file/a/b")), #"{"$ref":"file/a/b"}"#),
        ([], "[]"), ([:], "{}"), ([1, [2, []]], "[1,[2,[]]]"),
        (["b": 1, "a": 2, "é": 3, "Z": 4, "aa": 5], #"{"Z":4,"a":2,"aa":5,"b":1,"é":3}"#),
        (["$x": 1], #"{"$dict":{"$x":1}}"#),
        (["$dict": 1], #"{"$dict":{"$dict":1}}"#),
        (["$x": ["$y": true]], #"{"$dict":{"$x":{"$dict":{"$y":true}}}}"#),
        (["$x": 1, "y": 2], #"{"$x":1,"y":2}"#),
        (["x$": 1], #"{"x$":1}"#),
    ] as [(Value, String)])
    func writesExactText(value: Value, text: String) throws {
        #expect(TypedJSON.string(from: value) == text)
        #expect(value.description == text)
        #expect(try TypedJSON.value(from: text) == value)
    }

    @Test(arguments: [
        (Date(timeIntervalSince1970: 1_468_540_800), "2016-07-15T00:00:00Z"),
        (Date(timeIntervalSince1970: 1_468_540_800.5), "2016-07-15T00:00:00.5Z"),
        (Date(timeIntervalSince1970: 1_468_540_800.25), "2016-07-15T00:00:00.25Z"),
        (Date(timeIntervalSince1970: 0.5), "1970-01-01T00:00:00.5Z"),
        (Date(timeIntervalSince1970: 0.001), "1970-01-01T00:00:00.001Z"),
        (Date(timeIntervalSince1970: 1e-6), "1970-01-01T00:00:00.000001Z"),
        (Date(timeIntervalSince1970: -0.25), "1969-12-31T23:59:59.75Z"),
        (Date(timeIntervalSinceReferenceDate: 0), "2001-01-01T00:00:00Z"),
        (Date(timeIntervalSinceReferenceDate: 1e-6), "2001-01-01T00:00:00.000001Z"),
        (Date(timeIntervalSinceReferenceDate: -1e-6), "2000-12-31T23:59:59.999999Z"),
        (Date(timeIntervalSinceReferenceDate: .leastNonzeroMagnitude), "2001-01-01T00:00:00.\(String(repeating: "0", count: 323))5Z"),
        (Date(timeIntervalSince1970: 951_782_400), "2000-02-29T00:00:00Z"),
        // Foundation's distantPast is 0001-01-01 in the Julian calendar; typed JSON is proleptic Gregorian.
        (Date.distantPast, "0000-12-30T00:00:00Z"),
        (Date.distantFuture, "4001-01-01T00:00:00Z"),
        (Date(timeIntervalSince1970: -62_198_755_200), "-0001-01-01T00:00:00Z"),
        (Date(timeIntervalSince1970: 253_402_300_800), "+10000-01-01T00:00:00Z"),
    ])
    func writesDatesAsISO8601(date: Date, text: String) throws {
        let json = #"{"$date":"\#(text)"}"#
        #expect(TypedJSON.string(from: .date(date)) == json)
        let parsed = try #require(try TypedJSON.value(from: json).dateValue)
        #expect(parsed.timeIntervalSinceReferenceDate.bitPattern == date.timeIntervalSinceReferenceDate.bitPattern)
    }

    @Test func writesDatesISO8601CannotHold() throws {
        let cases: [(Double, String)] = [
            (.nan, #"{"$date":"NaN"}"#), (.infinity, #"{"$date":"Infinity"}"#),
            (-.infinity, #"{"$date":"-Infinity"}"#), (1e300, #"{"$date":1e+300}"#), (-0.0, #"{"$date":-0.0}"#),
        ]
        for (interval, json) in cases {
            let value = Value.date(Date(timeIntervalSinceReferenceDate: interval))
            #expect(TypedJSON.string(from: value) == json)
            #expect(try TypedJSON.value(from: json) == value)
        }
    }

    @Test func datesRoundTripExactlyThroughText() throws {
        var random = CodecRandom(seed: 42)
        for index in 0 ..< 2000 {
            // Uniform over ±300 years around 2001, plus tiny intervals near the reference date.
            let unit = Double(random.next() >> 11) / Double(1 << 53)
            let interval = index % 10 == 0
                ? Double(bitPattern: random.next() & 0x3FFF_FFFF_FFFF_FFFF) * (unit < 0.5 ? 1 : -1)
                : (unit - 0.5) * 2e10
            guard interval.magnitude < TypedJSONDate.isoLimit else { continue }
            let value = Value.date(Date(timeIntervalSinceReferenceDate: interval))
            let text = TypedJSON.string(from: value)
            let parsed = try TypedJSON.value(from: text)
            #expect(parsed == value, "\(text) for \(interval)")
        }
    }

    @Test func readsDateOffsetsAndRejectsInvalidDates() throws {
        let utc = try TypedJSON.value(from: #"{"$date":"2016-07-15T00:00:00Z"}"#)
        #expect(try TypedJSON.value(from: #"{"$date":"2016-07-15T02:30:00+02:30"}"#) == utc)
        #expect(try TypedJSON.value(from: #"{"$date":"2016-07-14T23:00:00.000-01:00"}"#) == utc)
        #expect(try TypedJSON.value(from: #"{"$date":0}"#) == .date(Date(timeIntervalSinceReferenceDate: 0)))
        for bad in [
            "2016-02-30T00:00:00Z", "2015-02-29T00:00:00Z", "2016-13-01T00:00:00Z", "2016-07-15T24:00:00Z",
            "2016-07-15T00:60:00Z", "2016-07-15T00:00:60Z", "2016-07-15T00:00:00", "2016-07-15 00:00:00Z",
            "16-07-15T00:00:00Z", "2016-7-15T00:00:00Z", "2016-07-15T00:00:00.Z", "2016-07-15T00:00:00Zx",
            "2016-07-15T00:00:00+0200", "12016-07-15T00:00:00Z", "", "nan",
        ] {
            #expect(throws: TypedJSONError.self, "\(bad)") { try TypedJSON.value(from: #"{"$date":"\#(bad)"}"#) }
        }
    }

    @Test func writesPrettyOutputWithTwoSpaces() {
        let value: Value = [
            "list": [1, [], [:], ["k": 1.5]],
            "when": .date(Date(timeIntervalSince1970: 0)),
            "$": .null,
        ]
        let expected = """
        {
          "$": null,
          "list": [
            1,
            [],
            {},
            {
              "k": 1.5
            }
          ],
          "when": {"$date": "1970-01-01T00:00:00Z"}
        }
        """
        #expect(TypedJSON.string(from: value, pretty: true) == expected)
        #expect(TypedJSON.string(from: ["$x": [1]] as [String: Value], pretty: true) == """
        {
          "$dict": {
            "$x": [
              1
            ]
          }
        }
        """)
    }

    @Test func readsEscapesAndWhitespace() throws {
        let text = " \r\n\t[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\u00E9\\ud83d\\ude00\\u0000\"] \n"
        #expect(try TypedJSON.value(from: text) == ["\"\\/\u{8}\u{C}\n\r\té\u{E9}😀\u{0}"])
        #expect(try TypedJSON.value(from: [0xEF, 0xBB, 0xBF] + Array("1".utf8)) == 1)
        #expect(try TypedJSON.value(from: "-0") == 0)
        #expect(try TypedJSON.value(from: "1E2") == 100.0)
        #expect(try TypedJSON.value(from: "-1.5e-3") == -0.0015)
    }

    @Test func readsDollarDictVerbatim() throws {
        #expect(try TypedJSON.value(from: #"{"$dict":{"$date":"x"}}"#) == ["$date": "x"])
        #expect(try TypedJSON.value(from: #"{"$dict":{}}"#) == [:])
        #expect(try TypedJSON.value(from: #"{"$dict":{"a":{"$double":"NaN"}}}"#) == ["a": .double(.nan)])
        // With other keys, "$dict" is a plain key and its object is read like any other.
        #expect(try TypedJSON.value(from: #"{"$dict":{"$ref":"a/b"},"x":1}"#)
            == ["$dict": .reference(try RecordRef("a/b")), "x": 1])
        #expect(try TypedJSON.value(from: #"{"x":1,"$dict":{"$ref":"a/b"}}"#)
            == ["$dict": .reference(try RecordRef("a/b")), "x": 1])
    }

    @Test func readsDictionaries() throws {
        #expect(try TypedJSON.dictionary(from: #"{"a":[1]}"#) == ["a": [1]])
        #expect(try TypedJSON.dictionary(from: Array(#"{"$dict":{"$a":1}}"#.utf8)) == ["$a": 1])
        #expect(TypedJSON.string(from: ["a": 1] as [String: Value]) == #"{"a":1}"#)
        #expect(throws: TypedJSONError(line: 2, column: 2, problem: "expected an object (a dictionary), found an array")) {
            try TypedJSON.dictionary(from: "\n [1]")
        }
        #expect(throws: TypedJSONError(line: 1, column: 1, problem: "expected an object (a dictionary), found a date")) {
            try TypedJSON.dictionary(from: #"{"$date":"2016-07-15T00:00:00Z"}"#)
        }
    }

    @Test func limitsNesting() throws {
        let depth = TypedJSON.maxDepth
        let deepest = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        #expect(try TypedJSON.value(from: deepest) == ValueSamples.nested(depth - 1, around: []))
        let tooDeep = "[" + deepest + "]"
        #expect(throws: TypedJSONError(line: 1, column: depth + 1, problem: "nesting deeper than 512 arrays and objects")) {
            try TypedJSON.value(from: tooDeep)
        }
    }
}

@Suite struct TypedJSONErrorTests {
    @Test(arguments: [
        ("", 1, 1, "unexpected end of input, expected a value"),
        ("  ", 1, 3, "unexpected end of input, expected a value"),
        ("[1,]", 1, 4, "unexpected ']', expected a value"),
        ("[1 2]", 1, 4, "expected ',' or ']' in array"),
        ("[1", 1, 3, "expected ',' or ']' in array"),
        (#"{"a":1 "b":2}"#, 1, 8, "expected ',' or '}' in object"),
        (#"{"a" 1}"#, 1, 6, "expected ':' after object key"),
        ("{1:2}", 1, 2, "expected a string key in object"),
        (#"{"a":1,}"#, 1, 8, "expected a string key in object"),
        (#"{"a":1,"a":2}"#, 1, 8, "duplicate key 'a' in object"),
        ("tru", 1, 1, "invalid literal, expected 'true'"),
        ("nul", 1, 1, "invalid literal, expected 'null'"),
        ("falsy", 1, 1, "invalid literal, expected 'false'"),
        ("truex", 1, 5, "unexpected 'x' after the JSON value"),
        ("1 2", 1, 3, "unexpected '2' after the JSON value"),
        ("NaN", 1, 1, "unexpected 'N', expected a value"),
        ("'a'", 1, 1, "unexpected ''', expected a value"),
        ("01", 1, 1, "leading zeros are not allowed in numbers"),
        ("-01", 1, 1, "leading zeros are not allowed in numbers"),
        ("-", 1, 2, "expected a digit in number"),
        ("+1", 1, 1, "unexpected '+', expected a value"),
        (".5", 1, 1, "unexpected '.', expected a value"),
        ("1.", 1, 3, "expected a digit after '.' in number"),
        ("1e", 1, 3, "expected a digit in the exponent of number"),
        ("1e+", 1, 4, "expected a digit in the exponent of number"),
        ("9223372036854775808", 1, 1, "integer 9223372036854775808 is out of Int64 range"),
        ("[-9223372036854775809]", 1, 2, "integer -9223372036854775809 is out of Int64 range"),
        ("99999999999999999999", 1, 1, "integer 99999999999999999999 is out of Int64 range"),
        ("1e400", 1, 1, "number 1e400 is out of Double range"),
        ("-1.5e309", 1, 1, "number -1.5e309 is out of Double range"),
        (#""abc"#, 1, 1, "unterminated string"),
        ("\"a\u{1}\"", 1, 3, "unescaped control character 0x01 in string"),
        ("\"a\nb\"", 1, 3, "unescaped control character 0x0a in string"),
        (#""\x""#, 1, 2, "invalid escape '\\x' in string"),
        (#""\u12""#, 1, 2, "expected 4 hex digits after \\u in string"),
        (#""\u12"#, 1, 6, "unterminated string"),
        (#""\ud800""#, 1, 2, "lone surrogate \\uD800 in string"),
        (#""\udc00x""#, 1, 2, "lone surrogate \\uDC00 in string"),
        (#""\ud800\u0041""#, 1, 2, "lone surrogate \\uD800 in string"),
        (#""\ud800\n""#, 1, 2, "lone surrogate \\uD800 in string"),
        (#"{"$foo":1}"#, 1, 2, "unknown tag '$foo' (write a dictionary whose only key starts with '$' as {\"$dict\":{...}})"),
        (#"{"$date":"nope"}"#, 1, 10, "invalid $date 'nope', expected ISO 8601 like 2016-07-15T00:00:00Z"),
        (#"{"$date":true}"#, 1, 10, "$date expects a string"),
        (#"{"$bytes":"!!"}"#, 1, 11, "invalid base64 in $bytes"),
        (#"{"$bytes":1}"#, 1, 11, "$bytes expects a string"),
        (#"{"$double":"nan"}"#, 1, 12, "$double expects \"NaN\", \"Infinity\" or \"-Infinity\""),
        (#"{"$double":1.5}"#, 1, 12, "$double expects \"NaN\", \"Infinity\" or \"-Infinity\""),
        (#"{"$ref":"noslash"}"#, 1, 9, "invalid $ref: invalid record reference 'noslash': a record reference is KIND/ID, with a '/'"),
        (#"{"$ref":null}"#, 1, 9, "$ref expects a string"),
        (#"{"$dict":1}"#, 1, 10, "$dict expects an object"),
        (#"[{"$dict":{"$x":1}},{"y":{"$z":2}}]"#, 1, 27, "unknown tag '$z' (write a dictionary whose only key starts with '$' as {\"$dict\":{...}})"),
        (#"{"$dict":{"$q":1},"y":2}"#, 1, 11, "unknown tag '$q' (write a dictionary whose only key starts with '$' as {\"$dict\":{...}})"),
        ("{\n  \"a\": 1,\n  \"b\": x\n}", 3, 8, "unexpected 'x', expected a value"),
        ("[\"é😀\", x]", 1, 8, "unexpected 'x', expected a value"),
        ("[1]\r\n\r\n,", 3, 1, "unexpected ',' after the JSON value"),
    ] as [(String, Int, Int, String)])
    func reportsLineColumnAndProblem(text: String, line: Int, column: Int, problem: String) {
        let expected = TypedJSONError(line: line, column: column, problem: problem)
        #expect(throws: expected) { try TypedJSON.value(from: text) }
        #expect(throws: expected) { try TypedJSON.value(from: Array(text.utf8)) }
    }

    @Test(arguments: [
        ([0x22, 0xC3, 0x28, 0x22], 2, "invalid UTF-8 sequence in string"),
        ([0x22, 0xC0, 0x80, 0x22], 2, "invalid UTF-8 byte 0xc0 in string"),
        ([0x22, 0xED, 0xA0, 0x80, 0x22], 2, "invalid UTF-8 sequence in string"),
        ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 2, "invalid UTF-8 sequence in string"),
        ([0x22, 0xE2, 0x82], 2, "invalid UTF-8 (truncated sequence) in string"),
        ([0x22, 0x80, 0x22], 2, "invalid UTF-8 byte 0x80 in string"),
        ([0x5B, 0xC3, 0xA9, 0x5D], 2, "unexpected byte 0xc3, expected a value"),
    ] as [([UInt8], Int, String)])
    func rejectsInvalidUTF8(bytes: [UInt8], column: Int, problem: String) {
        #expect(throws: TypedJSONError(line: 1, column: column, problem: problem)) {
            try TypedJSON.value(from: bytes)
        }
    }

    @Test func describesErrorsOnOneLine() {
        let error = TypedJSONError(line: 1, column: 9, problem: "expected ',' or '}' in object")
        #expect(error.description == "line 1, column 9: expected ',' or '}' in object")
    }
}
