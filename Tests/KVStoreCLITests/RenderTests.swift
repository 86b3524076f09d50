import Foundation
import Testing
import TestSupport

/// `render`: a template file, standard input or `--text`, filled with a record's values.
@Suite(.tags(.subprocess), .skippedByTag) struct RenderTests {
    let dir: TestDirectory
    let store: String

    init() throws {
        dir = try TestDirectory()
        store = dir.path("store")
        try dir.succeed("set", store, "person/ada", "name", #""Ada <Lovelace> & \"Byron\"'s""#)
        try dir.succeed("set", store, "person/ada", "address", #"{"city":"London"}"#)
        try dir.succeed("set", store, "person/ada", "born", #"{"$date":"1815-12-10T00:00:00Z"}"#)
        try dir.succeed("set", store, "invoice/1", "customer", #"{"$ref":"person/ada"}"#)
        try dir.succeed("set", store, "invoice/1", "lines", #"[{"amount":120},{"amount":80.5}]"#)
    }

    @Test func fillsTagsEscapingHTMLUnlessRaw() throws {
        let template = try dir.write("<h1>[[name]]</h1>\n<p>[[ raw name ]] of [[address.city]], born [[born]]</p>[[missing]]\n", to: "card.html")
        #expect(try dir.succeed("render", store, "person/ada", template).stdout == """
            <h1>Ada &lt;Lovelace&gt; &amp; &quot;Byron&quot;&#39;s</h1>
            <p>Ada <Lovelace> & "Byron"'s of London, born 1815-12-10T00:00:00Z</p>

            """)
    }

    /// `raw` followed by a tab or a line break still marks the tag raw (it was read as the key
    /// "raw\tname", which rendered as nothing).
    @Test func rawTakesAnyWhiteSpaceAfterIt() throws {
        #expect(try dir.succeed("render", store, "person/ada", "--text", "[[raw\tname]]|[[raw\naddress.city]]").stdout
                == #"Ada <Lovelace> & "Byron"'s|London"#)
    }

    @Test func readsStandardInputOrText() throws {
        let template = "Total [[lines.@sum.amount]] for [[customer.name]] ([[customer]])"
        let expected = "Total 200.5 for Ada &lt;Lovelace&gt; &amp; &quot;Byron&quot;&#39;s (person/ada)"
        #expect(try dir.kvstore(["render", store, "invoice/1", "-"], input: template).stdout == expected)
        #expect(try dir.succeed("render", store, "invoice/1", "--text", template).stdout == expected)
    }

    /// A TEMPLATE file that is a pipe (`/dev/stdin`, the shell's `<(…)`) is read to its end; it
    /// was refused with "cannot read the template file".
    @Test func readsATemplateFileThatIsAPipe() throws {
        let executable = try #require(KVStoreExecutable.url).path
        let piped = try #require(try runExternalTool("/bin/sh", ["-c", #"printf 'Hi [[address.city]]' | "$1" render "$2" person/ada /dev/stdin 2>&1"#, "sh", executable, store]))
        #expect(piped.status == 0 && piped.output == "Hi London", "\(piped.output)")
    }

    @Test func errorsNameTheProblem() throws {
        try dir.fail(["render", store, "person/ada", "--text", "a\nb [[name"], says: "kvstore: template line 2, column 3: '[[' is not closed by ']]'")
        // A tag left open before the next one: the error names it, rather than reading
        // "name, see [[address.city" as one key path and rendering nothing for both.
        try dir.fail(["render", store, "person/ada", "--text", "Hi [[name, see [[address.city]]"], says: "template line 1, column 4: '[[' is not closed by ']]'")
        try dir.fail(["render", store, "person/ada", "--text", "[[ ]]"], says: "template line 1, column 1: the tag '[[ ]]' names no key path")
        try dir.fail(["render", store, "person/ada", "--text", "x [[a..b]]"], says: "template line 1, column 3: invalid key path 'a..b'")
        try dir.fail(["render", store, "person/ada", "--text", "[[tags.@cnt]]"], says: "unknown collection operator '@cnt'")
        try dir.fail(["render", store, "person/ada", "--text", "[[nickname]]", "--strict"], says: "template line 1, column 1: no value at key path 'nickname' of person/ada")
        try dir.fail(["render", store, "person/zed", "--text", "[[name]]"], says: "person/zed: no such record")
        try dir.fail(["render", store, "zed", "--text", "[[name]]"], says: "invalid record reference 'zed'")
        try dir.fail(["render", store, "person/ada", dir.path("nofile.html")], says: "nofile.html: no such template file")
        try dir.fail(["render", store, "person/ada", dir.url.path], says: "is a directory, not a template file")
        try dir.fail(["render", dir.path("nostore"), "person/ada", "--text", "x"], says: "no store here")
    }
}
