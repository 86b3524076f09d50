import Foundation
import KVStore
import KVStoreTemplates
import Testing

/// ``Template``: parsing, value text, escaping, the undefined-key hook and strictness.
@Suite struct TemplateTests {
    @Test func partsSplitTextAndTags() throws {
        let template = try Template("a [[x.y]] b [[raw  z ]]]] c")
        #expect(template.parts == [
            .text("a "), .value(try KeyValuePath("x.y"), raw: false, position: .init(line: 1, column: 3)),
            .text(" b "), .value(try KeyValuePath("z"), raw: true, position: .init(line: 1, column: 13)),
            .text("]] c"),
        ])
        #expect(try Template("").parts.isEmpty)
        // Any white space after raw, as around the key path (a tab made "raw\tz" one key).
        #expect(try Template("[[raw\tz]]").parts == [.value(try KeyValuePath("z"), raw: true, position: .init(line: 1, column: 1))])
        #expect(try Template("[[rawness]]").parts == [.value(try KeyValuePath("rawness"), raw: false, position: .init(line: 1, column: 1))])
    }

    /// An error reads as one line, also when the tag it shows holds a line break.
    @Test func anEmptyTagWithALineBreakIsShownOnOneLine() {
        #expect {
            try Template("x [[raw\n\t]]")
        } throws: { error in
            "\(error)" == #"template line 1, column 3: the tag '[[raw\n\t]]' names no key path"#
        }
    }

    @Test(arguments: [
        ("ab\n  [[x", TemplateError.Code.unclosedTag, 2, 3),
        ("a [[x b [[y]]", .unclosedTag, 1, 3),
        ("é[[ ]]", .emptyTag, 1, 2),
        ("[[raw]]", .emptyTag, 1, 1),
        ("[[x]] [[.x]]", .invalidKeyPath, 1, 7),
        ("\n\n[[@nope]]", .invalidKeyPath, 3, 1),
    ])
    func badSyntaxNamesThePosition(_ text: String, _ code: TemplateError.Code, _ line: Int, _ column: Int) {
        #expect {
            try Template(text)
        } throws: { error in
            guard let error = error as? TemplateError else { return false }
            return error.code == code && error.position == .init(line: line, column: column)
                && "\(error)".hasPrefix("template line \(line), column \(column): ")
        }
    }

    @Test(arguments: [
        (Value.null, ""), (.string("a<b"), "a<b"), (.bool(true), "true"), (.int(-42), "-42"),
        (.double(120.5), "120.5"), (.double(-0.0), "-0.0"), (.double(.nan), "NaN"),
        (.double(.infinity), "Infinity"), (.double(-.infinity), "-Infinity"),
        (.date(Date(timeIntervalSince1970: 0)), "1970-01-01T00:00:00Z"),
        (.date(Date(timeIntervalSince1970: 0.5)), "1970-01-01T00:00:00.5Z"),
        (.bytes(Data([0, 1, 255])), "AAH/"), (.reference(try! RecordRef("person/ada")), "person/ada"),
        (.array([1, "x", .null]), #"[1,"x",null]"#), (.dictionary(["$a": 1]), #"{"$dict":{"$a":1}}"#),
    ])
    func valuesShowAsText(_ value: Value, _ text: String) {
        #expect(Template.text(of: value) == text)
    }

    @Test func escapingReplacesTheFiveCharacters() {
        #expect(Template.escapingHTML(#"<a href="x">Tom & Jerry's</a> ✓"#)
                == "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt; ✓")
        #expect(Template.escapingHTML("plain") == "plain")
    }

    @Test func undefinedKeysGoToTheKindsHookAndStrictFailsOnNil() throws {
        let store = try TemplateTestStore()
        var person = try Kind("person")
        person.valueForUndefinedKey = { key, _, _ in key == "fullName" ? "Ada Lovelace" : nil }
        try store.store.register(person)
        let ada = try store.store.insert(["name": "Ada"], kind: "person")
        let template = try Template("[[name]]/[[fullName]]/[[nickname]]")
        #expect(try store.store.read { try template.render(ada, in: $0) } == "Ada/Ada Lovelace/")
        #expect {
            try store.store.read { try template.render(ada, in: $0, strict: true) }
        } throws: { error in
            (error as? TemplateError)?.code == .undefinedValue && "\(error)".contains("'nickname'")
        }
        let closed = try RecordRef("invoice/1")
        try store.store.register(try Kind("invoice", keys: ["amount": .int]))
        try store.store.insert(["amount": 5], as: closed)
        #expect(throws: KeyValueCodingError.self) {
            try store.store.read { try Template("[[discount]]").render(closed, in: $0) }
        }
        #expect(throws: KeyValueCodingError.self) {
            try store.store.read { try Template("x").render(try RecordRef("person/none"), in: $0) }
        }
    }
}
