import ArgumentParser

/// The store's directory: the positional `<path>` that most commands take first
/// (`kvstore get PATH REF`), declared once. `Help` gives the line `--help` shows for it, which
/// says what the command does with the path: the common texts are below, and a command with
/// its own declares it beside its `@OptionGroup` (`promote`: "The replica's directory.").
///
/// ```swift
/// @OptionGroup var storePath: StorePathArgument<ExistingStore>
/// …
/// let store = try StoreAccess.openForReading(storePath.path)
/// ```
struct StorePathArgument<Help: StorePathHelp>: ParsableArguments {
    @Argument(help: ArgumentHelp(Help.text))
    var path: String
}

/// The help of a command's ``StorePathArgument``.
protocol StorePathHelp {
    static var text: String { get }
}

/// A store the command reads or changes, and never creates.
enum ExistingStore: StorePathHelp {
    static let text = "The store's directory."
}

/// A store the command creates when nothing is there (`set`, `load`).
enum StoreCreatedWhenAbsent: StorePathHelp {
    static let text = "The store's directory (created when absent)."
}
