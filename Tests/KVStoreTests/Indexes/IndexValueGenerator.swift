import Foundation
@testable import KVStore
import TestSupport

/// Random values for index tests: the edges of numbers (ints and doubles next to each other,
/// infinities, NaN, zeros, subnormals), strings with NUL, marks and case, dates, and the rest.
struct IndexValueGenerator {
    var random: SeededRandom

    init(_ seed: UInt64) { random = SeededRandom(seed) }

    mutating func int(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }

    mutating func number() -> Value {
        let edges: [Double] = [0, -0.0, 1, -1, 0.5, -0.5, 1e-300, -1e-300, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .infinity, -.infinity,
                               9_007_199_254_740_992, -9_007_199_254_740_992, 9.223372036854775807e18, -9.223372036854775808e18, 1e300]
        let ints: [Int64] = [0, 1, -1, 2, 9_007_199_254_740_993, 9_007_199_254_740_992, -9_007_199_254_740_993, .max, .min, .max - 1, .min + 1]
        switch int(6) {
        case 0: return .double(edges[int(edges.count)])
        case 1: return .int(ints[int(ints.count)])
        case 2: return .int(Int64(int(21)) - 10)
        case 3: return .double(Double(int(21)) / 4 - 2.5)
        case 4: return .double(Double(bitPattern: random.next()))  // any bits: NaNs and subnormals too
        default: return .int(Int64(bitPattern: random.next()))
        }
    }

    mutating func string() -> Value {
        let pieces = ["a", "b", "A", "é", "e\u{301}", "É", "\u{0}", "ß", "ss", "z", "日本", "ﬁ", "ı", "İ", " ", "\u{10FFFF}"]
        return .string((0 ..< int(5)).map { _ in pieces[int(pieces.count)] }.joined())
    }

    mutating func scalar() -> Value {
        switch int(9) {
        case 0, 1, 2: return number()
        case 3, 4: return string()
        case 5: return .date(Date(timeIntervalSinceReferenceDate: [-1e9, -1, 0, 1, 86_400.5, 1e9, .nan][int(7)]))
        case 6: return .bool(int(2) == 0)
        case 7: return .bytes(Data((0 ..< int(4)).map { _ in UInt8(truncatingIfNeeded: random.next()) }))
        default: return .null
        }
    }

    mutating func value(depth: Int = 0) -> Value {
        guard depth < 2 else { return scalar() }
        switch int(10) {
        case 0: return .array((0 ..< int(4)).map { _ in value(depth: depth + 1) })
        case 1: return .dictionary(Dictionary((0 ..< int(3)).map { _ in (["k", "l", "é"][int(3)], value(depth: depth + 1)) }, uniquingKeysWith: { $1 }))
        case 2: return .reference(ref(["item/a", "item/b"][int(2)]))
        default: return scalar()
        }
    }
}
