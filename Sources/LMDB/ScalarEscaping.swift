extension String {
    /// The text with each Unicode scalar `escaped` selects written as an escape: `\x1B` for ASCII,
    /// `\u{202E}` beyond it — for text from input (or from a damaged file) shown on one line.
    ///
    /// ```swift
    /// "a\nb".escapingScalars { $0.properties.generalCategory == .control }   // "a\\x0Ab"
    /// ```
    package func escapingScalars(where escaped: (Unicode.Scalar) -> Bool) -> String {
        guard unicodeScalars.contains(where: escaped) else { return self }
        var result = ""
        for scalar in unicodeScalars {
            let hex = String(scalar.value, radix: 16, uppercase: true)
            if !escaped(scalar) {
                result.unicodeScalars.append(scalar)
            } else if scalar.value < 0x80 {
                result += "\\x" + (hex.count < 2 ? "0" + hex : hex)
            } else {
                result += "\\u{" + hex + "}"
            }
        }
        return result
    }
}
