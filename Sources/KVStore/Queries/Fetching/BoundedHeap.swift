/// The `capacity` first elements of a sequence in an order, kept in a heap as they arrive: the
/// top-k of a sorted query with a limit, in O(n log k) time and O(k) memory.
struct BoundedHeap<Element> {
    let capacity: Int
    /// Whether the first argument comes before the second in the result order.
    let precedes: (Element, Element) -> Bool
    /// A max-heap in the result order: the element every other one precedes is at the root.
    private var storage: [Element] = []

    init(capacity: Int, precedes: @escaping (Element, Element) -> Bool) {
        self.capacity = capacity
        self.precedes = precedes
        storage.reserveCapacity(Swift.min(capacity, 4096))
    }

    /// Keeps `element` when it is among the first `capacity` seen so far.
    mutating func insert(_ element: Element) {
        guard capacity > 0 else { return }
        if storage.count < capacity {
            storage.append(element)
            siftUp(storage.count - 1)
        } else if precedes(element, storage[0]) {
            storage[0] = element
            siftDown(0)
        }
    }

    /// The elements kept, in order.
    func sorted() -> [Element] {
        storage.sorted(by: precedes)
    }

    private mutating func siftUp(_ index: Int) {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 2
            guard precedes(storage[parent], storage[child]) else { return }
            storage.swapAt(parent, child)
            child = parent
        }
    }

    private mutating func siftDown(_ index: Int) {
        var parent = index
        while true {
            let (left, right) = (2 * parent + 1, 2 * parent + 2)
            var largest = parent
            if left < storage.count, precedes(storage[largest], storage[left]) { largest = left }
            if right < storage.count, precedes(storage[largest], storage[right]) { largest = right }
            guard largest != parent else { return }
            storage.swapAt(parent, largest)
            parent = largest
        }
    }
}
