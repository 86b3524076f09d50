import Foundation
import KVStore

/// The steps of `kvstore demo`, each told in a short sentence on standard output.
struct DemoScript {
    let path: String
    let output: StandardOutput
    /// Set once the observers are registered: their reports follow each narrated step.
    private var observers: DemoObservers?

    init(path: String, output: StandardOutput) {
        self.path = path
        self.output = output
    }

    mutating func run() throws {
        say("Creating a store in \(path).")
        var options = Store.Options()
        options.validatesOnSet = true
        let store = try Store(path: path, options: options)
        try registerKinds(store)

        let ada = try RecordRef("person/ada"), grace = try RecordRef("person/grace")
        let invoices = try (1...3).map { try RecordRef("invoice/\($0)") }
        try store.insert(["name": "Ada", "age": 36], as: ada)
        try store.insert(["name": "Grace Hopper", "age": 85], as: grace)
        for (invoice, (customer, amount)) in zip(invoices, [(ada, 120), (grace, 80), (ada, 45)] as [(RecordRef, Int64)]) {
            try store.insert(["customer": .reference(customer), "amount": .int(amount), "paid": false], as: invoice)
        }
        say("Inserted person/ada, person/grace and invoice/1…3 (amounts 120, 80, 45), each invoice referring to its customer.")
        observers = try DemoObservers(store: store, ada: ada, invoice: invoices[0])
        say("Observing person/ada name, invoice/1 customer.name (through the reference) and the kind invoice. "
            + "Observers run after each commit, before the write returns; their reports follow each step:")

        try store.setValue("  Ada Lovelace  ", forKey: "name", of: ada)
        say("Set person/ada name to \"  Ada Lovelace  \": the validator stored \(try show(store.value(forKey: "name", of: ada))).")
        try store.setValue(nil, forKey: "age", of: ada)
        say("Set person/ada age to null: the setNilValueForKey hook stored \(try show(store.value(forKey: "age", of: ada))).")
        try store.setValue(["city": "London"], forKey: "address", of: ada)
        try store.setValue("Paris", forKeyPath: "address.city", of: ada)
        say("Set person/ada address to {\"city\":\"London\"}, then the key path address.city to \"Paris\": "
            + "address is now \(try show(store.value(forKey: "address", of: ada))).")

        do {
            try store.setValue(10, forKey: "discount", of: invoices[0])
        } catch {
            say("Setting invoice/1 discount fails, because kind 'invoice' is closed:")
            say("  \(error)")
        }
        try store.setValue("Grace Hopper", forKey: "name", of: grace)
        say("Setting person/grace name to \"Grace Hopper\", the value it holds, changes nothing: "
            + "no journal entry (the journal still ends at \(try store.read { try $0.lastSequence() })).")

        try store.write { txn in
            let tags = txn.mutableArray(forKey: "tags", of: ada)
            try tags.append("math")
            try tags.append("poetry")
            try tags.insert("engines", at: 0)
            try tags.remove(at: 2)
        }
        say("Edited person/ada tags by index with mutableArray(forKey:of:): appended \"math\" and \"poetry\", "
            + "inserted \"engines\" at 0, removed index 2.")
        say("  The first append created the key (journaled as a setting); each later edit is journaled "
            + "with its indexes, not as a new array. tags is now \(try show(store.value(forKey: "tags", of: ada))).")

        try computeOverInvoices(store)
        say("Through a reference, the key path customer.name of invoice/1 is "
            + "\(try show(store.value(forKeyPath: "customer.name", of: invoices[0]))).")
        try writeBatch(store, invoices: invoices)
        try showTypedAccess(store, invoice: invoices[1])
        try showReplication(store, invoice: invoices[1])
        try showJournalAndRecords(store)
    }

    private func registerKinds(_ store: Store) throws {
        var person = try Kind("person")
        person.setNilValueForKey = { _, _ in .int(0) }
        person.validators["name"] = { value, _, _ in
            if case .string(let name)? = value { value = .string(name.trimmingCharacters(in: .whitespaces)) }
        }
        try store.register(person)
        try store.register(try Kind("invoice", keys: ["customer": .reference, "amount": .int, "paid": .bool]))
        say("Registered kind 'person' (open: any key), with hooks: null on a number stores 0; a validator trims names.")
        say("Registered kind 'invoice' (closed: only customer, amount and paid), stored in the store's kind catalog: every process and `kvstore set` keep its rules.")
    }

    private func computeOverInvoices(_ store: Store) throws {
        let results = try ["@count", "@sum.amount", "@avg.amount", "@max.amount"].map { keyPath in
            "\(keyPath) = \(try show(store.value(forKeyPath: keyPath, ofKind: "invoice")))"
        }
        say("Over all invoices: " + results.joined(separator: ", ") + ".")
    }

    private func writeBatch(_ store: Store, invoices: [RecordRef]) throws {
        let (commit, sequences) = try store.write { txn in
            try txn.setValue(true, forKey: "paid", of: invoices[0])
            try txn.setValue(true, forKey: "paid", of: invoices[2])
            try txn.setValue(85, forKey: "amount", of: invoices[1])
            return (txn.commitID ?? 0, txn.entries.map(\.sequence))
        }
        say("One store.write { } marked invoices 1 and 3 paid and set invoice/2 amount to 85: "
            + "entries \(sequences.first ?? 0)…\(sequences.last ?? 0) share commit \(commit).")
    }

    private func showJournalAndRecords(_ store: Store) throws {
        say()
        say("The journal, as `kvstore journal list PATH --format table` prints it (other processes follow it with `kvstore journal list PATH --follow`):")
        try JournalListing.write(store, since: 1, limit: nil, format: .table, to: output)
        say()
        say("The records, as `kvstore dump PATH --format table` prints them:")
        try RecordListing.write(store, kind: nil, format: .table, to: output)
        say()
        let quoted = Self.shellQuoted(path)
        say("The store stays in \(path). Inspect it with:")
        say("  kvstore dump \(quoted)")
        say("  kvstore journal list \(quoted)")
        say("  kvstore value \(quoted) invoice @sum.amount")
        say("  kvstore stat \(quoted)")
        say("  kvstore verify \(quoted)")
    }

    func say(_ sentence: String = "") {
        output.line(sentence)
        for report in observers?.takeReports() ?? [] { output.line(report) }
    }

    func show(_ value: Value?) -> String {
        value.map { TypedJSON.string(from: $0) } ?? "null"
    }

    /// `path` as a shell word: as it is when it holds only safe characters, else in single quotes.
    static func shellQuoted(_ path: String) -> String {
        let safe = path.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || "0123456789/._-+,:@%".unicodeScalars.contains($0) }
        return safe && !path.isEmpty ? path : "'" + path.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
