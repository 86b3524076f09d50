import Foundation

/// A streamed `@sum` or `@avg` of ints: added in `Int64` as the values come, in `Decimal` past its
/// range, with the result ``CollectionOperator/combine(_:keyPath:)`` gives for the same values.
///
/// ```swift
/// var total = IntTotal()
/// for value in [.int(2), nil, .int(3)] as [Value?] { _ = total.add(value) }
/// total.result(.sum)   // .int(5)
/// ```
///
/// It takes ints, nulls and missing values only: anything else (a double, whose sum depends on
/// the order; a string, which the operator refuses) stops it, and the caller combines the values
/// the general way, which gives that case's result or error.
struct IntTotal {
    private var total: Int64 = 0
    private var wide: Decimal?
    /// The values added, nulls and missing ones included (``CollectionOperator/avg`` divides by it).
    private(set) var count = 0
    /// False once a value that is not an int or null came, or the caller gave up (``stop()``).
    private(set) var allInts = true

    /// Adds `value`; false when it is not an int or null (the total is then of no use).
    @inline(__always)
    mutating func add(_ value: Value?) -> Bool {
        count += 1
        switch value {
        case nil, .null?:
            return true
        case .int(let int)?:
            let (sum, overflow) = total.addingReportingOverflow(int)
            if overflow {
                wide = (wide ?? 0) + Decimal(total) + Decimal(int)
                total = 0
            } else {
                total = sum
            }
            return true
        default:
            allInts = false
            return false
        }
    }

    /// Marks the total as of no use (reading a value failed: the general path throws the error).
    mutating func stop() { allInts = false }

    /// The sum or average of what was added; nil when the values must be combined the general
    /// way (not all ints, or a sum past `Int64`, whose error that way gives).
    func result(_ op: CollectionOperator) -> Value?? {
        guard allInts else { return nil }
        let exact = (wide ?? 0) + Decimal(total)
        if op == .avg { return .some(NumericTotal(intTotal: exact, count: count).average) }
        guard wide == nil || Int64(exact.description) != nil else { return nil }
        return .some(.int(wide == nil ? total : Int64(exact.description)!))
    }
}
