import Foundation
import Testing
@testable import KVStore

/// A transaction composes a kind's rules once and reuses them while nothing under them changes:
/// a declaration stored in the transaction, and a registration anywhere in the process, take
/// effect at once, as when the rules were composed on every use.
@Suite struct KindRulesReuseTests {
    let t: TemporaryStore
    let note = ref("note/1")

    init() throws {
        t = try TemporaryStore()
        try t.store.insert(["title": "a"], as: note)
    }

    /// `note` with a hook that reads `value` for every key a record lacks.
    static func hooked(_ value: Value) throws -> Kind {
        var kind = try Kind("note")
        kind.valueForUndefinedKey = { _, _, _ in value }
        return kind
    }

    @Test func aDeclarationStoredInAWriteRulesTheRestOfIt() throws {
        try t.store.write { txn in
            try txn.insert(["title": "b"], as: ref("note/2"))  // open: the rules are composed here
            try txn.declare(Kind("note", keys: ["title": .string]))
            #expect(throws: KeyValueCodingError.self) { try txn.insert(["bogus": 1], as: ref("note/3")) }
            try txn.insert(["title": "c"], as: ref("note/4"))
        }
        #expect(try t.store.count(ofKind: "note") == 3)
    }

    @Test func aRegistrationDuringAReadRulesItsLaterReads() throws {
        try t.store.register(Self.hooked(1))
        let store = t.store
        let failures = Received<String>()
        let registered = DispatchSemaphore(value: 0)
        let (before, after) = try store.read { txn throws -> (Value?, Value?) in
            let before = try txn.value(forKey: "missing", of: note)
            Thread {
                // The same open declaration: no write, only the closures change.
                do { try store.register(Self.hooked(2)) } catch { failures.add("\(error)") }
                registered.signal()
            }.start()
            registered.wait()
            return (before, try txn.value(forKey: "missing", of: note))
        }
        #expect(failures.all.isEmpty)
        #expect(before == 1 && after == 2)
    }
}
