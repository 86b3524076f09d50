import ArgumentParser
import Foundation
import KVStore
import KVStoreTemplates

/// `kvstore render PATH REF TEMPLATE`: a record's values put into a text template.
struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Fill a text template with a record's values.",
        discussion: """
            TEMPLATE is a file, or - for standard input; with --text it is the template itself. \
            Each [[keyPath]] is replaced by the value there, HTML-escaped (& < > " ' become \
            entities); [[raw keyPath]] puts it in unescaped. Key paths go through nested \
            dictionaries, references and collection operators ([[customer.name]], \
            [[lines.@sum.amount]]). A string shows as it is, null or a missing value as \
            nothing, a date as ISO 8601, bytes as base64, a reference as kind/id, numbers and \
            bools as in JSON, arrays and dictionaries as compact typed JSON. With --strict, a \
            key path without a value is an error naming it.

            The output is the rendered text, with no newline added. Every [[ opens a tag: an \
            unclosed one is an error naming its line and column.

            Examples:
              kvstore render ./store person/ada card.html
              echo '<b>[[name]]</b> lives in [[address.city]]' | kvstore render ./store person/ada -
              kvstore render ./store invoice/7 --text 'Total: [[lines.@sum.amount]]' --strict
            """
    )

    @OptionGroup var storePath: StorePathArgument<ExistingStore>

    @Argument(help: ArgumentHelp("The record, as KIND/ID.", valueName: "ref"))
    var ref: String

    @Argument(help: ArgumentHelp("The template file, or - for standard input.", valueName: "template"))
    var template: String?

    @Option(help: ArgumentHelp("The template itself, instead of a file.", valueName: "template"))
    var text: String?

    @Flag(help: "Fail on a key path that has no value, instead of rendering it as nothing.")
    var strict = false

    func validate() throws {
        if template != nil && text != nil { throw ValidationError("give a TEMPLATE file or --text, not both") }
        if template == nil && text == nil { throw ValidationError("missing a TEMPLATE file (or - for standard input, or --text)") }
    }

    func run() throws {
        try reportingErrors {
            let ref = try Input.ref(ref)
            let parsed = try Template(try text ?? InputFile.text(of: template ?? "-", what: "template"))
            let store = try StoreAccess.openForReading(storePath.path)
            let rendered = try store.read { txn in try parsed.render(ref, in: txn, strict: strict) }
            let output = StandardOutput()
            output.write(rendered)
            try output.finish()
        }
    }
}
