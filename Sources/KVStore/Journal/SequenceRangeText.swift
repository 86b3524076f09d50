/// How messages name a run of journal sequences: `entry 7` for one, `entries 7…9` for more.
///
/// ```swift
/// "source \(entries(3, through: 3)) \(are(3, through: 3)) missing"   // "source entry 3 is missing"
/// ```
package func entries(_ first: UInt64, through last: UInt64) -> String {
    first == last ? "entry \(first)" : "entries \(first)…\(last)"
}

/// `is` for a run of one sequence, `are` for more (see ``entries(_:through:)``).
package func are(_ first: UInt64, through last: UInt64) -> String {
    first == last ? "is" : "are"
}
