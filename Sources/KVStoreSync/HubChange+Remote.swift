@_spi(Sync) import KVStore

extension HubChange {
    /// A local change as the hub holds it.
    init(_ change: RemoteChange) {
        let kind: Change = switch change.change {
        case .set: .set
        case .remove: .remove
        case .insert: .insert
        case .delete: .delete
        }
        self.init(origin: change.origin.storeID, originSequence: change.origin.sequence,
                  stamp: HubStamp(wall: change.stamp.wall, counter: change.stamp.counter), record: change.ref, key: change.key,
                  change: kind, value: change.value)
    }

    /// The change as the store applies it.
    var remote: RemoteChange {
        let kind: RemoteChange.Change = switch change {
        case .set: .set
        case .remove: .remove
        case .insert: .insert
        case .delete: .delete
        }
        return RemoteChange(origin: JournalOrigin(storeID: origin, sequence: originSequence),
                            stamp: HybridTime(wall: stamp.wall, counter: stamp.counter), ref: record, key: key, change: kind, value: value)
    }
}
