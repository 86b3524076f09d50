/// The records of several index scans, each given once: the access path of an `OR` whose operands
/// each have an index (`feed == $f OR tags == "swift"`). Each operand's scan holds every record
/// its operand can match, so the union holds every record the `OR` can; the plan checks the whole
/// predicate on each candidate and orders the results itself.
struct IndexUnion: CandidateSource, Hashable {
    /// One scan per operand of the `OR`.
    let scans: [IndexScan]

    func forEachCandidate(in transaction: ReadTransaction, _ body: (Candidate) throws -> Bool) throws {
        var seen = Set<String>()
        for scan in scans {
            var goOn = true
            try scan.forEachCandidate(in: transaction) { candidate in
                guard seen.insert(String(decoding: candidate.id, as: UTF8.self)).inserted else { return true }
                goOn = try body(candidate)
                return goOn
            }
            if !goOn { return }
        }
    }

    func knownCount(in transaction: ReadTransaction) throws -> Int? { nil }

    /// The union of the scans of `predicate`'s first top-level `OR` (itself, or a conjunct of its
    /// `AND`) whose operands each have an index (``IndexChoice``); nil when there is none.
    static func best(for query: RecordQuery, in transaction: ReadTransaction) throws -> IndexUnion? {
        for case .or(let operands) in IndexChoice.conjuncts(of: query.predicate) where operands.count <= maximumOperands {
            var scans: [IndexScan] = []
            for operand in operands {
                var part = query
                part.predicate = operand
                guard let choice = try IndexChoice.best(for: part, in: transaction) else { break }
                scans.append(choice.scan)
            }
            if scans.count == operands.count { return IndexUnion(scans: scans) }
        }
        return nil
    }

    /// The most operands of an `OR` read as a union.
    static let maximumOperands = 16

    /// `index item.feed | index item.tags`: each index read, once, in the order of the operands.
    var description: String {
        var names: [String] = []
        for scan in scans where !names.contains(scan.built.qualifiedName) { names.append(scan.built.qualifiedName) }
        return names.map { "index \($0)" }.joined(separator: " | ")
    }
}
