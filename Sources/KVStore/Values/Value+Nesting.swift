/// How deeply a value nests arrays and dictionaries, for the write-time nesting limit
/// (``KeyValueCodingError/maximumRecordNesting``).
extension Value {
    /// The levels of arrays and dictionaries in this value: 0 for a scalar, 1 for a flat array or
    /// dictionary, one more for each level inside. Walks with its own stack, so a value nested
    /// deeper than the thread's stack allows is measured rather than crashing.
    package var nestingLevels: Int {
        // The common record is flat: answer without allocating a stack for it.
        switch self {
        case .array(let elements) where !elements.contains(where: \.isContainer): return 1
        case .dictionary(let entries) where !entries.values.contains(where: \.isContainer): return 1
        case .array, .dictionary: break
        default: return 0
        }
        var deepest = 0
        var pending: [(value: Value, level: Int)] = [(self, 1)]
        while let (value, level) = pending.popLast() {
            deepest = max(deepest, level)
            switch value {
            case .array(let elements):
                for element in elements where element.isContainer { pending.append((element, level + 1)) }
            case .dictionary(let entries):
                for element in entries.values where element.isContainer { pending.append((element, level + 1)) }
            default:
                break
            }
        }
        return deepest
    }

    private var isContainer: Bool {
        switch self {
        case .array, .dictionary: true
        default: false
        }
    }
}
