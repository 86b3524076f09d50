// This file imports KVStore alone (no LMDB): an app's own signature can name `Durability` and
// its cases (it failed to compile before KVStore re-exported the type: "enum case 'full' cannot
// be used in a default argument value because 'LMDB' was not imported by this file").
import KVStore
import Testing

/// An app's own public function taking a durability, as an app would write it (a default
/// argument of a public function must name a case its file can see).
public func openOptions(durability: Durability = .full) -> Store.Options {
    var options = Store.Options()
    options.durability = durability
    return options
}

@Suite struct DurabilityImportTests {
    @Test func anAppImportingKVStoreAloneNamesDurabilityAndItsCases() {
        #expect(openOptions().durability == .full)
        #expect(openOptions(durability: .noMetaSync).durability == Durability.noMetaSync)
        #expect(Durability.allCases == [.full, .noMetaSync, .periodicSync, .noSync])
    }
}
