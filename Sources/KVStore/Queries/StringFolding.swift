import Foundation

/// `[c]` and `[d]`: the forms strings are compared in.
///
/// Every string is compared in Unicode Normalization Form C, so canonically equivalent spellings
/// (`é` as one scalar or as `e` + U+0301) are equal, and ordered by its Unicode scalars.
/// - `[d]` decomposes (NFD) and drops the nonspacing and enclosing marks: `é` → `e`, `Å` → `A`,
///   `İ` → `I`. Letters whose stroke is not a combining mark (`ø`, `ł`, `đ`) stay as they are.
/// - `[c]` maps each scalar to its uppercase, then that to its lowercase: Unicode's full,
///   locale-independent case folding in effect (`ß` and `ẞ` match `ss`, `ς` matches `σ`, `ﬁ`
///   matches `fi`). The exception is Turkish dotless `ı`, which folding keeps apart from `i`
///   (uppercasing would merge them): `"I" ==[c] "ı"` is false, `"İ" ==[cd] "i"` is true.
enum StringFolding {
    /// `string` in the form `options` compare it in.
    static func fold(_ string: String, _ options: StringComparisonOptions) -> String {
        if UTF8Text.isASCII(string) {
            return options.contains(.caseInsensitive) ? string.lowercased() : string
        }
        var scalars = string.unicodeScalars
        if options.contains(.diacriticInsensitive) {
            scalars = withoutMarks(string.decomposedStringWithCanonicalMapping).unicodeScalars
        }
        if options.contains(.caseInsensitive) {
            var folded = String.UnicodeScalarView()
            for scalar in scalars { folded.append(contentsOf: caseFolded(scalar)) }
            scalars = folded
        }
        return String(scalars).precomposedStringWithCanonicalMapping
    }

    private static func withoutMarks(_ decomposed: String) -> String {
        var view = String.UnicodeScalarView()
        for scalar in decomposed.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .enclosingMark: continue
            default: view.append(scalar)
            }
        }
        return String(view)
    }

    /// Upper then lower case, repeated until stable (`ẞ` → `ß` → `ss`), at most three rounds.
    private static func caseFolded(_ scalar: Unicode.Scalar) -> String.UnicodeScalarView {
        var view = String.UnicodeScalarView([scalar])
        for _ in 0 ..< 3 {
            var next = String.UnicodeScalarView()
            for scalar in view {
                guard scalar != "\u{131}" else {
                    next.append(scalar)
                    continue
                }
                for upper in scalar.properties.uppercaseMapping.unicodeScalars {
                    next.append(contentsOf: upper.properties.lowercaseMapping.unicodeScalars)
                }
            }
            if next.elementsEqual(view) { break }
            view = next
        }
        return view
    }
}
