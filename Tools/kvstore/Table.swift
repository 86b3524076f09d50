import KVStore

/// Aligned text columns, the `--format table` of `dump` and `journal list`: a header, then one
/// line per row; each column is as wide as its widest cell, columns are separated by two spaces,
/// and the last column is not padded.
///
/// ```swift
/// var table = Table(header: ["REF", "KEY", "VALUE"])
/// table.append(["person/ada", "name", #""Ada""#])
/// table.lines()   // ["REF         KEY   VALUE", "person/ada  name  \"Ada\""]
/// ```
struct Table {
    let header: [String]
    private(set) var rows: [[String]] = []

    init(header: [String]) {
        self.header = header
    }

    /// Adds a row of cells, one per column of the header.
    mutating func append(_ row: [String]) {
        precondition(row.count == header.count, "a table row needs \(header.count) cells")
        rows.append(row)
    }

    /// The header and the rows, aligned.
    func lines() -> [String] {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            var line = ""
            for (column, cell) in row.enumerated() {
                if column == row.count - 1 {
                    line += cell
                } else {
                    line += cell + String(repeating: " ", count: widths[column] - cell.count + 2)
                }
            }
            while line.last == " " { line.removeLast() }
            return line
        }
    }

    /// A name (a key) as a table cell: as it is, or as a JSON string when it holds a control
    /// character, which would break the row's line or its alignment.
    ///
    /// ```swift
    /// Table.label("name")       // name
    /// Table.label("two\nlines") // "two\nlines"
    /// ```
    static func label(_ name: String) -> String {
        guard name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return name }
        return TypedJSON.string(from: .string(name))
    }

    /// A value as a table cell: compact typed JSON, shortened with `…` past `limit` characters;
    /// `-` for no value.
    static func cell(_ value: Value?, limit: Int = .max) -> String {
        guard let value else { return "-" }
        let text = TypedJSON.string(from: value)
        return text.count > limit ? String(text.prefix(limit - 1)) + "…" : text
    }
}
