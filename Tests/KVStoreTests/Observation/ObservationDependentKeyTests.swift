import Foundation
import Testing
@testable import KVStore

/// Dependent keys (`Kind.keyPathsAffecting`): derived values notify when their inputs change.
@Suite struct ObservationDependentKeyTests {
    /// `fullName` from first and last; `label` from fullName (chained) and employer.name
    /// (through a reference); `shout` from label (chained twice).
    static func person() throws -> Kind {
        var person = try Kind("person")
        person.valueForUndefinedKey = { key, ref, txn in
            func text(_ keyPath: String) throws -> String { try txn.value(forKeyPath: keyPath, of: ref)?.stringValue ?? "" }
            switch key {
            case "fullName": return .string(try "\(text("first")) \(text("last"))")
            case "label": return .string(try "\(text("fullName")) at \(text("employer.name"))")
            case "shout": return .string(try text("label").uppercased())
            default: return nil
            }
        }
        person.keyPathsAffecting = ["fullName": ["first", "last"], "label": ["fullName", "employer.name"], "shout": ["label"]]
        return person
    }

    @Test func aDerivedKeyNotifiesWhenAnInputChanges() throws {
        let (t, ada) = try TemporaryStore.holding(["first": "Ada", "last": "Byron"], as: "person/ada", kinds: [Self.person()])
        let received = Received<ObservedChange>()
        let token = try t.store.observe(ada, keyPath: "fullName", options: [.old, .new]) { received.add($0) }
        try t.store.setValue("Lovelace", forKey: "last", of: ada)
        try t.store.setValue("x", forKey: "unrelated", of: ada)
        #expect(received.all.map { [$0.oldValue, $0.newValue] } == [["Ada Byron", "Ada Lovelace"]])
        #expect(received.all.map(\.kind) == [.setting])
        _ = token
    }

    @Test func dependenciesChainAndGoThroughReferences() throws {
        let t = try TemporaryStore(kinds: [Self.person(), try Kind("company")])
        let ada = ref("person/ada"), company = ref("company/babbage"), other = ref("company/other")
        try t.store.insert(["name": "Babbage & Co"], as: company)
        try t.store.insert(["name": "Other Ltd"], as: other)
        try t.store.insert(["first": "Ada", "last": "Byron", "employer": .reference(company)], as: ada)
        let received = Received<Value?>()
        let token = try t.store.observe(ada, keyPath: "shout") { received.add($0.newValue) }
        try t.store.setValue("Lovelace", forKey: "last", of: ada)            // last → fullName → label → shout
        try t.store.setValue("Analytical Engines", forKey: "name", of: company)  // employer.name → label → shout
        try t.store.setValue(.reference(other), forKey: "employer", of: ada)  // re-attaches to the other company
        try t.store.setValue("Ignored Inc", forKey: "name", of: company)
        try t.store.setValue("Other Plc", forKey: "name", of: other)
        #expect(received.all == [
            "ADA LOVELACE AT BABBAGE & CO", "ADA LOVELACE AT ANALYTICAL ENGINES",
            "ADA LOVELACE AT OTHER LTD", "ADA LOVELACE AT OTHER PLC",
        ])
        _ = token
    }

    @Test func aManuallyAnnouncedDerivedChangeIsDeliveredOnce() throws {
        let (t, ada) = try TemporaryStore.holding(["first": "Ada", "last": "Byron"], as: "person/ada", kinds: [Self.person()])
        let received = Received<ObservedChange>()
        let token = try t.store.observe(ada, keyPath: "fullName", options: [.old, .new]) { received.add($0) }
        try t.store.write { txn in
            try txn.willChangeValue(forKey: "fullName", of: ada)
            try txn.setValue("Augusta", forKey: "first", of: ada)
            try txn.didChangeValue(forKey: "fullName", of: ada)
        }
        #expect(try t.store.journalEntries().last?.isDerived == true)
        #expect(received.all.map { [$0.oldValue, $0.newValue] } == [["Ada Byron", "Augusta Byron"]])
        _ = token
    }

    @Test func aMalformedInputKeyPathIsRefusedWhenObservingStarts() throws {
        var kind = try Kind("person")
        kind.keyPathsAffecting = ["fullName": ["first..last"]]
        let (t, ada) = try TemporaryStore.holding(["first": "Ada"], as: "person/ada", kinds: [kind])
        #expect(performing: { _ = try t.store.observe(ada, keyPath: "fullName") { _ in } }, throws: code(.invalidKeyPath))
    }
}
