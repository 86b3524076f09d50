/// The records a write transaction inserted and deleted per kind, saved into the counters once
/// at commit (``WriteTransaction/finish()``). The kind changed last is kept beside the table: a
/// run of inserts into one kind compares its name (a small string: two words) instead of hashing
/// it into the table at every insert.
struct KindCountDeltas {
    private var table: [String: Int] = [:]
    private var last: (kind: String, delta: Int)?

    /// Adds `delta` to `kind`'s count.
    mutating func add(_ delta: Int, to kind: String) {
        if let current = last {
            if current.kind == kind {
                last = (kind, current.delta + delta)
                return
            }
            table[current.kind, default: 0] += current.delta
        }
        last = (kind, delta)
    }

    /// The change of `kind`'s count so far.
    subscript(kind: String) -> Int {
        let pending = last.map { $0.kind == kind ? $0.delta : 0 } ?? 0
        return table[kind, default: 0] + pending
    }

    /// Every kind changed, with its change (zero for a kind whose inserts and deletes cancel).
    var all: [String: Int] {
        var all = table
        if let last { all[last.kind, default: 0] += last.delta }
        return all
    }
}
