/// Values by key in the order they were last used, for evicting the least recently used in
/// O(1): a doubly linked list kept in an array of slots (indices, not objects, so no allocation
/// per entry once the array has grown), with a dictionary from key to slot. Not thread-safe:
/// its owner holds it under a lock.
struct RecencyList<Value> {
    private struct Slot {
        var key: String
        var value: Value
        /// The slot used just before this one (towards the oldest), or -1.
        var older: Int
        /// The slot used just after (towards the newest), or -1.
        var newer: Int
    }

    private var slots: [Slot] = []
    private var freeSlots: [Int] = []
    private var slotByKey: [String: Int] = [:]
    private var newest = -1
    private var oldest = -1

    var count: Int { slotByKey.count }

    /// The value of `key`, without counting as a use.
    func peek(_ key: String) -> Value? {
        slotByKey[key].map { slots[$0].value }
    }

    /// Stores `value` for `key` as its newest use.
    mutating func set(_ value: Value, for key: String) {
        if let slot = slotByKey[key] {
            slots[slot].value = value
            unlink(slot)
            linkNewest(slot)
            return
        }
        let new = Slot(key: key, value: value, older: -1, newer: -1)
        let slot: Int
        if let reused = freeSlots.popLast() {
            slots[reused] = new
            slot = reused
        } else {
            slots.append(new)
            slot = slots.count - 1
        }
        slotByKey[key] = slot
        linkNewest(slot)
    }

    /// Removes `key` and returns its value, if it was there.
    @discardableResult
    mutating func remove(_ key: String) -> Value? {
        guard let slot = slotByKey.removeValue(forKey: key) else { return nil }
        unlink(slot)
        freeSlots.append(slot)
        return slots[slot].value
    }

    /// Removes the least recently used entry and returns its key.
    @discardableResult
    mutating func removeOldest() -> String? {
        guard oldest >= 0 else { return nil }
        let key = slots[oldest].key
        remove(key)
        return key
    }

    private mutating func unlink(_ slot: Int) {
        let (older, newer) = (slots[slot].older, slots[slot].newer)
        if older >= 0 { slots[older].newer = newer } else { oldest = newer }
        if newer >= 0 { slots[newer].older = older } else { newest = older }
        slots[slot].older = -1
        slots[slot].newer = -1
    }

    private mutating func linkNewest(_ slot: Int) {
        slots[slot].older = newest
        slots[slot].newer = -1
        if newest >= 0 { slots[newest].newer = slot } else { oldest = slot }
        newest = slot
    }
}
