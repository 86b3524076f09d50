extension WriteTransaction {
    /// Called by ``declare(_:ofKind:)`` when the indexes of `kind` change, after the new
    /// declaration is stored in this transaction: builds the indexes added (over the kind's
    /// existing records) and drops the ones removed.
    ///
    /// Empty here: the secondary-indexes branch implements it (this placeholder goes at merge).
    func indexesChanged(ofKind kind: String, from old: [KindIndex], to new: [KindIndex]) throws {}
}
