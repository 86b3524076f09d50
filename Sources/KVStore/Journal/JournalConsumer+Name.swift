extension JournalConsumer {
    /// The longest consumer name, in UTF-8 bytes.
    public static let maxNameLength = 128

    /// Checks `name` is a valid consumer name: 1 to ``maxNameLength`` UTF-8 bytes, printable, with
    /// no whitespace (so it reads well in a listing and needs no quoting in a shell).
    /// - Throws: ``JournalRetentionError/Code/invalidConsumerName``.
    static func validate(name: String, path: String) throws(JournalRetentionError) {
        let problem: String? =
            if name.isEmpty { "is empty" }
            else if name.utf8.count > maxNameLength { "is longer than \(maxNameLength) bytes" }
            else if name.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control || $0.properties.generalCategory == .format || $0.properties.generalCategory == .unassigned }) {
                "holds whitespace or a control character"
            } else { nil }
        if let problem {
            let shown = String(name.unicodeScalars.prefix(40).map { $0.escaped(asASCII: true) }.joined())
            throw JournalRetentionError(
                .invalidConsumerName, "invalid consumer name '\(shown)': it \(problem)", path: path, consumer: name)
        }
    }
}
