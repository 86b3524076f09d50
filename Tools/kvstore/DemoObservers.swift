import KVStore

/// The observers `kvstore demo` registers, and what they report.
///
/// Observers run on the writing thread before the write returns; the demo is its store's only
/// writer, so their reports are collected here and printed after the sentence that narrates the
/// step (``takeReports()``).
final class DemoObservers: @unchecked Sendable {
    private var reports: [String] = []
    private var tokens: [ObservationToken] = []

    /// Observes person/ada's name (old and new value), invoice/1's customer.name (through the
    /// reference, with its initial value), and the kind invoice.
    init(store: Store, ada: RecordRef, invoice: RecordRef) throws {
        tokens.append(try store.observe(ada, keyPath: "name", options: [.old, .new]) { [unowned self] change in
            report("observer of \(ada) name: \(show(change.oldValue)) → \(show(change.newValue)) (commit \(change.commitID ?? 0))")
        })
        tokens.append(try store.observe(invoice, keyPath: "customer.name", options: [.initial, .new]) { [unowned self] change in
            report("observer of \(invoice) customer.name: \(change.isInitial ? "initially " : "now ")\(show(change.newValue))")
        })
        tokens.append(try store.observeKind("invoice") { [unowned self] changes in
            let parts = [("inserted", changes.inserted), ("modified", changes.modified), ("deleted", changes.deleted)]
                .filter { !$0.1.isEmpty }.map { "\($0.0) \($0.1.sorted().joined(separator: ", "))" }
            report("observer of kind invoice: commit \(changes.commitID) " + parts.joined(separator: "; "))
        })
    }

    /// The reports since the last call, oldest first.
    func takeReports() -> [String] {
        defer { reports = [] }
        return reports
    }

    private func report(_ line: String) {
        reports.append("  ↳ " + line)
    }

    private func show(_ value: Value?) -> String {
        value.map { TypedJSON.string(from: $0) } ?? "nothing"
    }
}
