import KVStore

/// Splits a template's text into text and tags (see ``Template`` for the syntax).
struct TemplateParser {
    private let text: String

    init(_ text: String) {
        self.text = text
    }

    func parse() throws(TemplateError) -> [Template.Part] {
        var parts: [Template.Part] = []
        var rest = text[...]
        var position = TemplateError.Position(line: 1, column: 1)
        while let open = rest.range(of: "[[") {
            let before = rest[..<open.lowerBound]
            position.advance(over: before)
            if !before.isEmpty { parts.append(.text(String(before))) }
            let tagStart = position
            let afterOpen = rest[open.upperBound...]
            guard let close = afterOpen.range(of: "]]"),
                  afterOpen[..<close.lowerBound].range(of: "[[") == nil else {
                throw TemplateError(.unclosedTag, "'[[' is not closed by ']]'", at: tagStart)
            }
            let inside = afterOpen[..<close.lowerBound]
            parts.append(try Self.tag(inside, at: tagStart))
            position.advance(over: rest[open.lowerBound..<close.upperBound])
            rest = afterOpen[close.upperBound...]
        }
        if !rest.isEmpty { parts.append(.text(String(rest))) }
        return parts
    }

    /// The tag whose text between `[[` and `]]` is `inside`.
    private static func tag(_ inside: Substring, at position: TemplateError.Position) throws(TemplateError) -> Template.Part {
        var keyPath = inside.trimmingSpaces()
        var raw = false
        if keyPath == "raw" || keyPath.hasPrefix("raw") && keyPath.dropFirst(3).first?.isWhitespace == true {
            raw = true
            keyPath = keyPath.dropFirst(3).trimmingSpaces()
        }
        if keyPath.isEmpty {
            // The inside is white space: escape line breaks and tabs so the message stays one line.
            let shown = inside.unicodeScalars.map { $0.escaped(asASCII: false) }.joined()
            throw TemplateError(.emptyTag, "the tag '[[\(shown)]]' names no key path", at: position)
        }
        do {
            return .value(try KeyValuePath(String(keyPath)), raw: raw, position: position)
        } catch {
            throw TemplateError(.invalidKeyPath, error.description, at: position)
        }
    }
}

extension TemplateError.Position {
    /// Moves past `text`: a new line per line break, else a column per character.
    mutating func advance(over text: Substring) {
        for character in text {
            if character.isNewline {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
    }
}

extension Substring {
    /// Without white space at either end, by Unicode scalar, as tags are found: a space after a
    /// prepended mark such as U+06DD forms one Character with it, and must still be trimmed.
    fileprivate func trimmingSpaces() -> Substring {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return self[endIndex...] }
        return Substring(scalars[first...last])
    }
}
