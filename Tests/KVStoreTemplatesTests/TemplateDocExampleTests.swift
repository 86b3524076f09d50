import Foundation
import KVStore
import KVStoreTemplates   // not @testable: the examples use the public API only
import Testing

/// The ```swift examples of the `///` comments of templates, each run against a temporary store
/// (as DocExampleTests does for KVStore's), with `#expect`s where an example shows a result in a
/// comment. If an example here stops compiling, fix the doc comment it came from too.
@Suite struct TemplateDocExampleTests {
    /// Template.swift and TemplateError.swift.
    @Test func templates() throws {
        let t = try TemplateTestStore()
        let store = t.store
        let ada = try RecordRef("person/ada")
        try store.insert(["name": "Ada", "address": ["city": "London"]], as: ada)
        try store.setValue("<b>Analyst</b>", forKey: "bio", of: ada)
        try store.setValue("Ada & Co", forKey: "name", of: ada)
        let template = try Template("<h1>[[name]]</h1><p>[[address.city]], [[raw bio]]</p>")
        let html = try store.read { txn in try template.render(ada, in: txn) }
        #expect(html == "<h1>Ada &amp; Co</h1><p>London, <b>Analyst</b></p>")

        #expect(Template.text(of: .date(Date(timeIntervalSince1970: 0))) == "1970-01-01T00:00:00Z")
        #expect(Template.escapingHTML(#"<a href="x">Tom & Jerry's</a>"#)
            == "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;")

        var printed = ""
        do { _ = try Template("Hello [[name") } catch { printed = "\(error)" }
        #expect(printed == "template line 1, column 7: '[[' is not closed by ']]'")
    }
}
