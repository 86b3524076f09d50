import FuzzSupport
@_spi(Fuzzing) import KVStore

// The kind catalog's declaration decoder (`KindDeclaration(encoded:)`, how the store reads a
// `catalog/<kind>` value of meta) on any bytes. Checks: no trap; failures are one line; a
// declaration that decodes goes through its journal form (what a `kindDeclared` entry carries)
// back to bytes that decode to the same declaration, and those bytes are stable.

@_cdecl("FuzzKindDeclaration_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, seeds: { try Samples.declarations.map(FuzzingEntryPoints.encodeKindDeclaration) }, callback: fuzzOne)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = inputBytes(data, count)
    let declaration: Value?
    do {
        declaration = try FuzzingEntryPoints.decodeKindDeclaration(bytes)
    } catch {
        requireOneLine(error.description, from: "KindDeclaration(encoded:)", quoting: bytes)
        return 0
    }
    do {
        let encoded = try FuzzingEntryPoints.encodeKindDeclaration(declaration)
        let again = try FuzzingEntryPoints.decodeKindDeclaration(encoded)
        require(again == declaration, "a declaration's encoding decodes to another: \(String(describing: declaration)), then \(String(describing: again))")
        require(try FuzzingEntryPoints.encodeKindDeclaration(again) == encoded, "a declaration's encoding is not stable")
    } catch {
        require(false, "a declaration that decodes does not encode and decode again: \(error)")
    }
    return 0
}
