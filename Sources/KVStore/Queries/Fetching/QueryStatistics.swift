/// What one query execution did, counted as it goes: for tests that check a query reads only what
/// it must (a limit stops the scan, a filter decodes only the keys it names), never for timing.
final class QueryStatistics {
    /// Candidates the access path handed over.
    var candidates = 0
    /// Candidates the residual predicate was evaluated on.
    var evaluated = 0
    /// Keys read from candidates' encodings (by the predicate, the sort and key paths).
    var keysRead = 0
    /// Records looked up by id (the candidates of an index, the ordered results).
    var recordsLookedUp = 0
    /// Results decoded whole.
    var recordsDecoded = 0
    /// Keys decoded for projections (``ReadTransaction/fetch(_:keys:)`` with keys).
    var keysProjected = 0
}
