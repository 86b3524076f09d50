/// A path's parent directory and last component, by cutting at slashes. Foundation's
/// `NSString.deletingLastPathComponent` and `lastPathComponent` trap on a one-character
/// relative path (`e`, `e/`) on Linux, so a replica named `e` stopped the process with a signal.
///
/// ```swift
/// PathComponents("backup/orders")   // parent "backup", name "orders"
/// PathComponents("e")               // parent ".", name "e"
/// PathComponents("/e/")             // parent "/", name "e"
/// ```
package struct PathComponents {
    /// The directory holding the last component: `.` for a relative path without a slash.
    package let parent: String
    /// The last component, without trailing slashes.
    package let name: String

    package init(_ path: String) {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let slash = trimmed.lastIndex(of: "/") else {
            parent = "."
            name = String(trimmed)
            return
        }
        name = String(trimmed[trimmed.index(after: slash)...])
        var directory = trimmed[..<slash]
        while directory.count > 1 && directory.hasSuffix("/") { directory.removeLast() }
        parent = directory.isEmpty ? "/" : String(directory)
    }

    /// `<parent>/.<name><suffix>`: a hidden file or directory beside the path.
    package func hiddenSibling(_ suffix: String) -> String {
        "\(parent)/.\(name)\(suffix)"
    }
}
