import FuzzSupport
@_spi(Fuzzing) import KVStore

// The journal-entry decoders on any bytes: the direct decoder (`JournalCodec.decodeDirectly`, the
// fast path every journal reader takes) against the generic one (`RecordCodec.decode`, then
// `JournalEntry(dictionary:)`), and `JournalCodec.decode(_:sequence:)`, how the store reads its
// journal. Checks: no trap; failures are one line; the direct decoder throws only on bytes the
// generic decoder refuses too, and an entry it reads is the generic decoder's (same encoding;
// entries are compared by encoding, since a NaN timestamp is not equal to itself); a decoded
// entry re-encodes as `RecordCodec.encode(entry.dictionary)` does and decodes back to the same
// encoding; the store's decoder accepts it at its own sequence and refuses it, with `corrupt`, at
// another.

@_cdecl("FuzzJournalEntry_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, seeds: {
        let reader = try JournalStreamReader(bytes: try ScratchStore.sampleStream())
        var seeds: [[UInt8]] = []
        while let commit = try reader.nextCommit() { seeds += commit.map(FuzzingEntryPoints.encodeJournalEntry) }
        return seeds
    }, callback: fuzzOne)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = inputBytes(data, count)
    var direct: JournalEntry?
    var directFailed = false
    do {
        direct = try FuzzingEntryPoints.decodeJournalEntryDirectly(bytes)
    } catch {
        requireOneLine(error.description, from: "JournalCodec.decodeDirectly", quoting: bytes)
        directFailed = true
    }
    var generic: JournalEntry?
    do {
        generic = try JournalEntry(dictionary: FuzzingEntryPoints.decodeRecord(bytes))
    } catch let error as FuzzingEntryPoints.DecodingFailure {
        requireOneLine(error.description, from: "RecordCodec.decode", quoting: bytes)
    } catch let error as JournalFormatError {
        requireOneLine(error.description, from: "JournalEntry(dictionary:)", quoting: bytes)
    } catch {
        require(false, "the generic decoder threw an undocumented \(type(of: error))")
    }
    if directFailed {
        require((try? FuzzingEntryPoints.decodeRecord(bytes)) == nil, "the direct decoder refuses bytes that decode as a record")
    }
    if let direct {
        guard let generic else { require(false, "the direct decoder reads an entry the generic decoder refuses"); return 0 }
        require(FuzzingEntryPoints.encodeJournalEntry(direct) == FuzzingEntryPoints.encodeJournalEntry(generic),
                "the direct and generic decoders read different entries: \(direct) and \(generic)")
    }
    guard let entry = direct ?? generic else {
        do { _ = try FuzzingEntryPoints.decodeJournalEntry(bytes, sequence: 1) } catch {
            require(error.code == .corrupt, "the store's decoder fails with \(error.code), not corrupt")
            requireOneLine(error.description, from: "JournalCodec.decode", quoting: bytes)
        }
        return 0
    }
    let encoded = FuzzingEntryPoints.encodeJournalEntry(entry)
    require(encoded == FuzzingEntryPoints.encodeRecord(entry.dictionary), "encode(entry) differs from RecordCodec.encode(entry.dictionary)")
    do {
        let again = try FuzzingEntryPoints.decodeJournalEntry(encoded, sequence: entry.sequence)
        require(FuzzingEntryPoints.encodeJournalEntry(again) == encoded, "an entry's encoding does not decode to itself")
        _ = try FuzzingEntryPoints.decodeJournalEntry(bytes, sequence: entry.sequence)
    } catch {
        require(false, "the store's decoder refuses an entry at its own sequence: \(error)")
    }
    do {
        _ = try FuzzingEntryPoints.decodeJournalEntry(bytes, sequence: entry.sequence &+ 1)
        require(false, "the store's decoder accepts entry \(entry.sequence) as entry \(entry.sequence &+ 1)")
    } catch {
        require(error.code == .corrupt, "a wrong sequence fails with \(error.code), not corrupt")
        requireOneLine(error.description, from: "JournalCodec.decode", quoting: bytes)
    }
    return 0
}
