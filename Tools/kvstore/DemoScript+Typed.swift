import KVStore

/// The demo's invoices as a Swift type: the typed layer maps it to and from their records.
struct DemoInvoice: StoredModel {
    static let kind = "invoice"
    var id: String
    var customer: RecordRef
    var amount: Int
    var paid: Bool
}

extension DemoScript {
    /// Reads an invoice as a `Codable` model, then updates it from "the server's version",
    /// writing only the keys that differ.
    func showTypedAccess(_ store: Store, invoice: RecordRef) throws {
        guard let model = try store.fetch(DemoInvoice.self, id: invoice.id) else { return }
        say("Fetched \(invoice) as a Swift struct (a StoredModel, through Codable): amount \(model.amount), "
            + "paid \(model.paid), customer \(model.customer).")
        let server: [String: Value] = ["amount": .int(Int64(model.amount)), "paid": true]
        let changes = try store.update(invoice, from: server, keys: Set(server.keys))
        let listed = changes.sorted { $0.key < $1.key }.map { "\($0.key) \(show($0.value.old)) → \(show($0.value.new))" }
        say("The server's version says amount \(model.amount), paid true: update(_:from:keys:) wrote only what "
            + "differed, in one commit, and returned it: \(listed.joined(separator: ", ")).")
    }
}
