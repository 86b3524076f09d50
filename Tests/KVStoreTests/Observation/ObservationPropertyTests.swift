import Foundation
import Testing
@testable import KVStore

/// `Property<T>` (weak subscribers) and bindings from a record's key path.
@Suite struct ObservationPropertyTests {
    final class Label: @unchecked Sendable {
        var text = ""
        var seen: [String] = []
    }

    @Test func aPropertyNotifiesLivingSubscribersAndCullsTheGoneOnes() {
        let title = Property("untitled")
        let kept = Label()
        title.subscribe(kept) { label, value in label.seen.append(value) }
        do {
            let shortLived = Label()
            title.subscribe(shortLived) { label, value in label.seen.append(value) }
            #expect(title.subscriberCount == 2)
            title.value = "first"
            #expect(shortLived.seen == ["untitled", "first"])
        }
        #expect(title.subscriberCount == 1)
        title.value = "second"
        #expect(kept.seen == ["untitled", "first", "second"])
        #expect(title.value == "second")
    }

    /// A set on another thread while a handler runs returns at once, and its value reaches the
    /// subscriber after the value being handled, so the subscriber ends on the property's value.
    @Test func aSetWhileAnotherThreadsHandlerRunsIsHandedOutAfterIt() {
        let count = Property(0)
        let seen = Received<Int>()
        let owner = Label()
        count.subscribe(owner) { _, value in
            if value == 1 {
                let setterReturned = DispatchSemaphore(value: 0)
                DispatchQueue.global().async {
                    count.value = 2
                    setterReturned.signal()
                }
                setterReturned.wait()
            }
            seen.add(value)
        }
        count.value = 1
        #expect(seen.all == [0, 1, 2])
        #expect(count.value == 2)
    }

    @Test func aHandlerMaySetThePropertyAndTheNewValueFollows() {
        let count = Property(0)
        let seen = Received<Int>()
        let owner = Label()
        count.subscribe(owner) { _, value in
            seen.add(value)
            if value == 1 { count.value = 2 }
        }
        count.value = 1
        #expect(seen.all == [0, 1, 2])
        #expect(count.value == 2)
    }

    @Test func aBindingSetsItsTargetNowAndOnEveryChange() throws {
        let (t, ada) = try TemporaryStore.holding(["name": "Ada"], as: "person/ada")
        let label = Label()
        let binding = try t.store.from(ada, "name").map { $0?.stringValue ?? "nobody" }.map { "Hello, \($0)" }.to(label, \.text)
        #expect(label.text == "Hello, Ada")
        try t.store.setValue("Ada Lovelace", forKey: "name", of: ada)
        #expect(label.text == "Hello, Ada Lovelace")
        try t.store.removeValue(forKey: "name", of: ada)
        #expect(label.text == "Hello, nobody")
        binding.cancel()
        binding.cancel()
        try t.store.setValue("Ignored", forKey: "name", of: ada)
        #expect(label.text == "Hello, nobody")
    }

    @Test func aBindingToAPropertyEndsOnceItsTargetIsGone() throws {
        let (t, ada) = try TemporaryStore.holding(["age": 36], as: "person/ada")
        weak var weakBinding: RecordBinding?
        do {
            let age = Property<Int64>(0)
            weakBinding = try t.store.from(ada, "age").map { $0?.intValue ?? 0 }.to(age, \.value)
            #expect(age.value == 36)
            try t.store.setValue(37, forKey: "age", of: ada)
            #expect(age.value == 37)
            #expect(weakBinding?.isActive == true)  // alive while its target is, though no one holds it
        }
        try t.store.setValue(38, forKey: "age", of: ada)  // the target is gone: the binding ends
        #expect(weakBinding == nil)
        #expect(t.store.observation.observerCount.load(ordering: .relaxed) == 0)
    }

    @Test func aClosureBindingLivesAsLongAsItsToken() throws {
        let (t, ada) = try TemporaryStore.holding(["name": "Ada"], as: "person/ada")
        let received = Received<String>()
        var token: ObservationToken? = try t.store.from(ada, "name").map { $0?.stringValue ?? "" }.to { received.add($0) }
        try t.store.setValue("Augusta", forKey: "name", of: ada)
        token = nil
        try t.store.setValue("Ignored", forKey: "name", of: ada)
        #expect(received.all == ["Ada", "Augusta"])
        #expect(token == nil)
    }
}
