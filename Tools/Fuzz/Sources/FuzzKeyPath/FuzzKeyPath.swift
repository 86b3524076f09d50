import Foundation
import FuzzSupport
import KVStore

// The key-path parser (`KeyValuePath`) on any text, and evaluation of what parses against small
// records (nested dictionaries, references both ways, arrays of dictionaries) through a read
// transaction, from one record and over a kind. Checks: no trap; a parse failure is a
// `KeyValueCodingError` (typed throws) `invalidKeyPath` or `unknownOperator` with a one-line
// message; a parsed path prints as its text and rebuilds from its components; evaluation gives a
// value or a one-line `KeyValueCodingError`, and refuses a path that does not parse with the
// parser's own error.

nonisolated(unsafe) var scratch: ScratchStore?

@_cdecl("FuzzKeyPath_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    scratch = try? ScratchStore.withSampleRecords()
    atexit { scratch?.remove() }  // libFuzzer ends the process with exit()
    return runFuzzer(argc, argv, seeds: {
        ["name", "address.city", "friend.friend.name", "lines.@sum.amount", "lines.@distinctUnionOfObjects.sku",
         "@count", "scores.@avg", "scores.@max", "friend.@count", "a..b", "@", "lines.@unionOfArrays.sku", "tags.é",
        ].map { Array($0.utf8) }
    }, callback: fuzzOne)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let text = String(decoding: inputBytes(data, count), as: UTF8.self)
    var parseError: KeyValueCodingError?
    do {
        let path = try KeyValuePath(text)
        require(path.description == text, "'\(text)' parses to a path printed '\(path.description)'")
        do {
            let rebuilt = try KeyValuePath(components: path.components)
            require(rebuilt == path, "'\(text)' does not rebuild from its components")
        } catch {
            require(false, "'\(text)' parses but its components are refused: \(error)")
        }
    } catch {
        require(error.code == .invalidKeyPath || error.code == .unknownOperator, "parsing '\(text)' fails with \(error.code)")
        requireOneLine(error.description, from: "KeyValuePath.init", quoting: Array(text.utf8))
        parseError = error
    }
    guard let store = scratch?.store else { return 0 }
    for evaluate in [
        { (txn: ReadTransaction) throws -> Value? in try txn.value(forKeyPath: text, of: Samples.ref("person/ada")) },
        { (txn: ReadTransaction) throws -> Value? in try txn.value(forKeyPath: text, ofKind: "person") },
    ] {
        do {
            _ = try store.read(evaluate)
            require(parseError == nil, "'\(text)' evaluates although it does not parse")
        } catch let error as KeyValueCodingError {
            requireOneLine(error.description, from: "value(forKeyPath:)", quoting: Array(text.utf8))
            if let parseError { require(error.code == parseError.code, "evaluating '\(text)' fails with \(error.code), parsing with \(parseError.code)") }
        } catch {
            require(false, "evaluating '\(text)' threw \(type(of: error)): \(error)")
        }
    }
    return 0
}
