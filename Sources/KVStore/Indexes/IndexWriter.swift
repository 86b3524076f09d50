import LMDB

/// Adds and removes one record's entries in the `indexes` database (``IndexEntryLayout``), and
/// checks a unique index before a write.
struct IndexWriter {
    let transaction: LMDB.Transaction
    let db: Database

    /// Puts the entry of record `id` with `tuple` (already cut) in the index `prefix` starts.
    func add(prefix: [UInt8], tuple: [UInt8], isCut: Bool, id: String, isElement: Bool) throws {
        // The common case: a key of its own, holding the whole id, built on the stack (one
        // B-tree operation, no allocation).
        if try addAlone(prefix: prefix, tuple: tuple, isCut: isCut, id: id, isElement: isElement) { return }
        let key = IndexEntryLayout.key(prefix: prefix, tuple: tuple, id: id)
        let item = IndexEntryLayout.Item(id: id, isElement: isElement)
        var items = try items(at: key, prefixLength: prefix.count).filter { $0.id != id }
        items.append(item)
        try transaction.put(key, IndexEntryLayout.value(key: key, prefixLength: prefix.count, tupleLength: tuple.count, isCut: isCut, items: items), in: db)
    }

    /// Puts the short form of the entry when its key holds the whole id and is free.
    /// - Returns: false, having written nothing, when the id does not fit or the key is taken.
    private func addAlone(prefix: [UInt8], tuple: [UInt8], isCut: Bool, id: String, isElement: Bool) throws -> Bool {
        var id = id
        return try id.withUTF8 { id in
            let length = prefix.count + tuple.count + id.count
            guard length <= IndexEntryLayout.maximumKeyLength else { return false }
            let flags: IndexEntryFlags = [isCut ? .inexact : [], isElement ? .element : []]
            let value = (flags.rawValue, UInt8(tuple.count))
            return try withUnsafeTemporaryAllocation(byteCount: length, alignment: 1) { key in
                UnsafeMutableRawBufferPointer(rebasing: key[..<prefix.count]).copyBytes(from: prefix)
                UnsafeMutableRawBufferPointer(rebasing: key[prefix.count ..< prefix.count + tuple.count]).copyBytes(from: tuple)
                UnsafeMutableRawBufferPointer(rebasing: key[(prefix.count + tuple.count)...]).copyBytes(from: id)
                return try withUnsafeBytes(of: value) { value in
                    do {
                        try transaction.put(UnsafeRawBufferPointer(key), value, in: db, overwrite: false)
                        return true
                    } catch let error as LMDBError where error.code == LMDBError.keyExists.code {
                        return false
                    }
                }
            }
        }
    }

    /// Removes the entry of record `id` with `tuple` (already cut).
    func remove(prefix: [UInt8], tuple: [UInt8], isCut: Bool, id: String) throws {
        let key = IndexEntryLayout.key(prefix: prefix, tuple: tuple, id: id)
        let items = try items(at: key, prefixLength: prefix.count).filter { $0.id != id }
        if items.isEmpty {
            try transaction.delete(key, in: db)
        } else {
            try transaction.put(key, IndexEntryLayout.value(key: key, prefixLength: prefix.count, tupleLength: tuple.count, isCut: isCut, items: items), in: db)
        }
    }

    /// The records under `key` (none when it is absent or does not decode: it is rewritten).
    private func items(at key: [UInt8], prefixLength: Int) throws -> [IndexEntryLayout.Item] {
        try transaction.withValue(forKey: key, in: db) { value in
            value.flatMap { IndexEntryLayout.decode(key: key, value: $0, prefixLength: prefixLength)?.items } ?? []
        }
    }

    /// The records other than `id` that have an entry with `tuple` (uncut) in the index, as far
    /// as the keys tell: `exact` ones surely hold it, `possible` ones hold a tuple cut alike.
    func others(prefix: [UInt8], tuple: [UInt8], id: String) throws -> (exact: [String], possible: [String]) {
        let (cut, isCut) = IndexEntryLayout.cut(tuple)
        var exact: [String] = [], possible: [String] = []
        try transaction.scan(db, prefix: prefix + cut) { key, value in
            guard let stored = IndexEntryLayout.decode(key: key, value: value, prefixLength: prefix.count),
                  stored.tupleLength == cut.count else { return true }
            for item in stored.items where item.id != id {
                if isCut || stored.flags.contains(.inexact) { possible.append(item.id) } else { exact.append(item.id) }
            }
            return true
        }
        return (exact, possible)
    }

    /// Deletes every entry whose key starts with `prefix`.
    /// - Returns: how many.
    @discardableResult
    func removeAll(prefix: [UInt8]) throws -> Int {
        try transaction.withCursor(on: db) { cursor in
            var deleted = 0
            while let (key, _) = try cursor.seek(atOrAfter: prefix), key.starts(with: prefix) {
                try cursor.deleteCurrent()
                deleted += 1
            }
            return deleted
        }
    }
}
