/// Negative numbers given to options (`--limit -5`). ArgumentParser reads `-5` as an option, not
/// as the value, and says "Missing value for '--limit <n>'": wrong about what the user typed. The
/// value is passed on joined to its option (`--limit=-5`), so the command's own rule answers
/// (`--limit must be 0 or more, not -5`); an option that takes no negative number at all (a
/// sequence number) says so, naming the option.
enum NegativeValues {
    /// `arguments` with the negative number after the option that `message` (ArgumentParser's
    /// "Missing value for '--name <value>'") names joined to it, or nil when there is none.
    static func joined(_ arguments: [String], after message: String) -> [String]? {
        guard message.hasPrefix("Missing value for '--"), let name = optionName(in: message) else { return nil }
        let options = arguments.prefix { $0 != "--" }
        guard let index = options.indices.first(where: { options[$0] == name && $0 + 1 < options.endIndex }),
              isNegativeNumber(options[index + 1]) else { return nil }
        var joined = arguments
        joined.replaceSubrange(index...(index + 1), with: ["\(name)=\(arguments[index + 1])"])
        return joined
    }

    /// `arguments` with `--` put before the first negative number that ArgumentParser read as an
    /// option (`kvstore set S account/1 balance -5`), so that it is read as the positional
    /// argument it is; nil when there is none, or when an option follows it (`--` would make
    /// that option a positional argument). Arguments after a `--` the user wrote are left alone.
    static func positional(_ arguments: [String]) -> [String]? {
        let options = arguments.prefix { $0 != "--" }
        guard let index = options.firstIndex(where: isNegativeNumber),
              !arguments[index...].contains(where: { $0.hasPrefix("-") && !isNegativeNumber($0) }) else { return nil }
        var separated = arguments
        separated.insert("--", at: index)
        return separated
    }

    /// ArgumentParser's "The value '-5' is invalid for '--since <seq>'" for a negative number, as
    /// "--since must be 0 or more, not -5"; nil for any other message.
    static func rule(for message: String) -> String? {
        let prefix = "The value '"
        guard message.hasPrefix(prefix), let end = message.dropFirst(prefix.count).firstIndex(of: "'") else { return nil }
        let value = String(message[message.index(message.startIndex, offsetBy: prefix.count)..<end])
        guard isNegativeNumber(value), let name = optionName(in: String(message[end...].dropFirst())) else { return nil }
        return "\(name) must be 0 or more, not \(value)"
    }

    /// The first `--name` quoted in `message`.
    private static func optionName(in message: String) -> String? {
        guard let start = message.range(of: "'--")?.lowerBound else { return nil }
        let name = message[message.index(after: start)...].prefix { $0 != " " && $0 != "'" }
        return name.count > 2 ? String(name) : nil
    }

    private static func isNegativeNumber(_ text: String) -> Bool {
        text.hasPrefix("-") && text.count > 1 && Double(text) != nil
    }
}
