/// One (record, top-level key) that an observed key path read: a change to it may change the
/// key path's value.
struct Dependency: Hashable {
    let ref: RecordRef
    let key: String
}

/// Evaluates an observed key path and notes every (record, key) the evaluation read: through
/// nested dictionaries (the top-level key that holds them), through references (the keys read in
/// the records they point to), and — for a kind's dependent keys
/// (``Kind/keyPathsAffecting``) — everything their input key paths read, chained.
///
/// Those dependencies are where the observation is attached; when one of them changes, the key
/// path is evaluated again and attached anew (a reference that now points elsewhere moves it).
final class DependencyRecorder: KeyValueSource {
    private let transaction: ReadTransaction
    private let strict: Bool
    private(set) var dependencies: Set<Dependency> = []

    /// - Parameter strict: throw what an input key path of a dependent key throws (when the
    ///   observation starts), rather than ignoring it (when a commit is being observed).
    private init(transaction: ReadTransaction, strict: Bool) {
        self.transaction = transaction
        self.strict = strict
    }

    func value(forKey key: String, of ref: RecordRef) throws -> Value? {
        if dependencies.insert(Dependency(ref: ref, key: key)).inserted,
           let inputs = transaction.store.kind(named: ref.kind)?.keyPathsAffecting[key] {
            for input in inputs {
                do {
                    _ = try KeyPathEvaluator.value(forKeyPath: KeyValuePath(input), of: ref, source: self)
                } catch {
                    if strict { throw error }
                }
            }
        }
        return try TransactionSource(transaction: transaction).value(forKey: key, of: ref)
    }

    /// The value of `path` from `ref` (nil for a missing record or intermediate) and what it read.
    ///
    /// - Parameter strict: when true, errors (a key into a scalar, an undefined key of a closed
    ///   kind, a malformed input key path) are thrown; when false the value is nil.
    static func evaluate(
        _ path: KeyValuePath, of ref: RecordRef, in transaction: ReadTransaction, strict: Bool
    ) throws -> (value: Value?, dependencies: Set<Dependency>) {
        let recorder = DependencyRecorder(transaction: transaction, strict: strict)
        do {
            return (try KeyPathEvaluator.value(forKeyPath: path, of: ref, source: recorder), recorder.dependencies)
        } catch {
            if strict { throw error }
            return (nil, recorder.dependencies)
        }
    }
}
