import Foundation
import FuzzSupport
import KVStore
import KVStoreTemplates

// The template parser (`Template`, `kvstore render`) on any text, and rendering what parses against
// a small record. Checks: no trap; a parse failure is a `TemplateError` (typed throws) with a
// one-line message at a line and column ≥ 1; a parsed template written back in canonical form
// (text as it is, tags as `[[ path ]]` / `[[ raw path ]]`) parses to the same parts; rendering gives
// text or a one-line `TemplateError` / `KeyValueCodingError`.

nonisolated(unsafe) var scratch: ScratchStore?

@_cdecl("FuzzTemplate_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    scratch = try? ScratchStore.withSampleRecords()
    atexit { scratch?.remove() }  // libFuzzer ends the process with exit()
    return runFuzzer(argc, argv, seeds: {
        ["<h1>[[name]]</h1><p>[[address.city]], [[raw bio]]</p>", "[[ friend.name ]] ]] [x]", "a\n[[\tscores.@sum ]]\nb",
         "[[", "[[ ]]", "[[a..b]]", "[[raw]]", "[[lines.@avg.amount]] & <>\"'",
        ].map { Array($0.utf8) }
    }, callback: fuzzOne)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let text = String(decoding: inputBytes(data, count), as: UTF8.self)
    let template: Template
    do {
        template = try Template(text)
    } catch {
        requireOneLine(error.description, from: "Template.init", quoting: Array(text.utf8))
        require(error.position.line >= 1 && error.position.column >= 1, "an error at \(error.position)")
        return 0
    }
    let canonical = template.parts.map { part in
        switch part {
        case .text(let text): text
        // Spaces around the path, as a key path may end with ']' (`[[ a] ]]`).
        case .value(let path, let raw, _): "[[ " + (raw ? "raw " : "") + path.description + " ]]"
        }
    }.joined()
    do {
        let again = try Template(canonical)
        require(again.parts.map(withoutPosition) == template.parts.map(withoutPosition),
                "'\(text)' written back as '\(canonical)' parses differently")
    } catch {
        require(false, "'\(text)' written back as '\(canonical)' does not parse: \(error)")
    }
    guard let store = scratch?.store else { return 0 }
    for strict in [false, true] {
        do {
            _ = try store.read { try template.render(Samples.ref("person/ada"), in: $0, strict: strict) }
        } catch let error as TemplateError {
            require(strict, "a non-strict render threw \(error)")
            requireOneLine(error.description, from: "Template.render", quoting: Array(text.utf8))
        } catch let error as KeyValueCodingError {
            requireOneLine(error.description, from: "Template.render", quoting: Array(text.utf8))
        } catch {
            require(false, "rendering threw \(type(of: error)): \(error)")
        }
    }
    return 0
}

/// A part without where it was: positions differ between a template and its canonical form.
func withoutPosition(_ part: Template.Part) -> Template.Part {
    if case .value(let path, let raw, _) = part { return .value(path, raw: raw, position: .init(line: 1, column: 1)) }
    return part
}
