/// Whether an index's order of a component is the order a sort (``SortValueOrder``) gives its value.
///
/// The classes a sort and the index order alike, and in the same sequence, are missing and `null`
/// (one class), `false`, `true`, numbers, strings, dates, bytes and references; within each the
/// encoding keeps the sort's order, except for:
/// - NaN (a number or a date): a sort puts it before the other numbers, the index after them;
/// - a string that is not in the form the index keeps (NFC, or folded in a folded index): the
///   index orders the kept form, a sort the string as stored;
/// - a reference whose kind holds `-` or `.`, bytes below the `/` of the encoded `kind/id` (a sort
///   orders kinds first: `a/x` before `a-b/x`, which the index puts first);
/// - arrays and dictionaries, whose components order element by element.
extension IndexKeyEncoding {
    /// How a component's index order departs from a sort's order of its value.
    struct SortDeparture: OptionSet, Hashable {
        let rawValue: UInt8

        /// The component's class, or its place within it, is not where a sort puts the value.
        static let unordered = SortDeparture(rawValue: 1)
        /// A string the index keeps in another form (not NFC, or not folded in a folded index).
        static let reformed = SortDeparture(rawValue: 2)
    }

    /// Appends the component of `value`, as ``append(_:folded:to:)`` does.
    /// - Returns: how its index order departs from a sort's (empty: it keeps it).
    static func appendReportingOrder(_ value: Value, folded: Bool, to out: inout [UInt8]) -> SortDeparture {
        switch value {
        case .null, .bool, .int, .bytes:
            append(value, folded: folded, to: &out)
            return []
        case .string(let string):
            out.append(Class.string)
            let form = indexedForm(of: string, folded: folded)
            appendEscaped(form.utf8, to: &out)
            return form.utf8.elementsEqual(string.utf8) ? [] : .reformed
        case .double(let double):
            append(value, folded: folded, to: &out)
            return double.isNaN ? .unordered : []
        case .date(let date):
            append(value, folded: folded, to: &out)
            return date.timeIntervalSinceReferenceDate.isNaN ? .unordered : []
        case .reference(let ref):
            append(value, folded: folded, to: &out)
            return ref.kind.utf8.contains(where: { $0 < UInt8(ascii: "/") }) ? .unordered : []
        case .array, .dictionary:
            append(value, folded: folded, to: &out)
            return .unordered
        }
    }
}
