extension WriteTransaction {
    /// Refuses a write that would make a record nest more than
    /// ``KeyValueCodingError/maximumRecordNesting`` levels, before anything is written: the record
    /// and its journal entry (one level deeper) must stay decodable.
    /// - Parameter outerLevels: the levels around `value` in the record (1 for a top-level key's
    ///   value, which sits in the record's dictionary; 0 for a whole record).
    func checkNesting(of value: Value, outerLevels: Int, keyPath: String?, ref: RecordRef) throws(KeyValueCodingError) {
        let levels = outerLevels + value.nestingLevels
        if levels > KeyValueCodingError.maximumRecordNesting {
            throw KeyValueCodingError.nestedTooDeeply(levels: levels, keyPath: keyPath, ref: ref)
        }
    }
}
