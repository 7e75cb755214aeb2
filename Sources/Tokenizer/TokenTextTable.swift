/// Token texts in one contiguous buffer with an open-addressing hash index,
/// so a 262k-token vocabulary loads without a String or Array per token and
/// lookups by byte slice neither allocate nor retain. Built once, then
/// immutable (hence safe to share).
final class TokenTextTable: @unchecked Sendable {
    private var storage: UnsafeMutablePointer<UInt8>
    private var storageCapacity: Int
    private(set) var byteCount = 0
    /// Start of token i's text; `starts[count]` is the end of the last one.
    private var starts: UnsafeMutablePointer<Int32>
    private var startsCapacity: Int
    private(set) var count = 0
    private var slots: UnsafeMutablePointer<Int32>?
    private var mask = 0

    init(capacity: Int, byteCapacity: Int) {
        storageCapacity = max(byteCapacity, 16)
        storage = .allocate(capacity: storageCapacity)
        startsCapacity = max(capacity, 16) + 1
        starts = .allocate(capacity: startsCapacity)
        starts[0] = 0
    }

    deinit {
        storage.deallocate()
        starts.deallocate()
        slots?.deallocate()
    }

    func append(_ text: UnsafeRawBufferPointer) {
        if byteCount + text.count > storageCapacity {
            let newCapacity = max(storageCapacity * 2, byteCount + text.count)
            let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
            bigger.update(from: storage, count: byteCount)
            storage.deallocate()
            storage = bigger
            storageCapacity = newCapacity
        }
        if count + 2 > startsCapacity {
            let newCapacity = startsCapacity * 2
            let bigger = UnsafeMutablePointer<Int32>.allocate(capacity: newCapacity)
            bigger.update(from: starts, count: count + 1)
            starts.deallocate()
            starts = bigger
            startsCapacity = newCapacity
        }
        if let base = text.baseAddress, text.count > 0 {
            (storage + byteCount).update(from: base.assumingMemoryBound(to: UInt8.self), count: text.count)
        }
        byteCount += text.count
        count += 1
        starts[count] = Int32(byteCount)
    }

    func append(_ text: [UInt8]) {
        text.withUnsafeBytes { append($0) }
    }

    @inline(__always)
    private static func hash(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for i in 0..<n { h = (h ^ UInt64(p[i])) &* 0x100_0000_01B3 }
        return Int(truncatingIfNeeded: h ^ (h >> 29))
    }

    @inline(__always)
    private func equal(_ id: Int, _ p: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        let start = Int(starts[id])
        guard Int(starts[id + 1]) - start == n else { return false }
        let q = storage + start
        for i in 0..<n where q[i] != p[i] { return false }
        return true
    }

    /// Builds the index. Later ids win for duplicate texts (as in llama.cpp).
    func buildIndex() {
        var size = 16
        while size < count * 2 { size <<= 1 }
        mask = size - 1
        let slots = UnsafeMutablePointer<Int32>.allocate(capacity: size)
        slots.initialize(repeating: -1, count: size)
        for id in 0..<count {
            let start = Int(starts[id]), n = Int(starts[id + 1]) - start
            let p = UnsafePointer(storage + start)
            var slot = Self.hash(p, n) & mask
            while true {
                let existing = slots[slot]
                if existing < 0 || equal(Int(existing), p, n) {
                    slots[slot] = Int32(id)
                    break
                }
                slot = (slot + 1) & mask
            }
        }
        self.slots?.deallocate()
        self.slots = slots
    }

    @inline(__always)
    func lookup(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int32? {
        guard let slots else { return nil }
        var slot = Self.hash(p, n) & mask
        while true {
            let id = slots[slot]
            if id < 0 { return nil }
            if equal(Int(id), p, n) { return id }
            slot = (slot + 1) & mask
        }
    }

    func lookup(_ text: UnsafeRawBufferPointer) -> Int32? {
        guard let base = text.baseAddress else {
            var empty: UInt8 = 0
            return lookup(&empty, 0)
        }
        return lookup(base.assumingMemoryBound(to: UInt8.self), text.count)
    }

    func lookup(_ text: [UInt8]) -> Int32? {
        text.withUnsafeBytes { lookup($0) }
    }

    /// Token `id`'s bytes, valid while the table lives.
    @inline(__always)
    func bytes(_ id: Int) -> UnsafeBufferPointer<UInt8> {
        let start = Int(starts[id])
        return UnsafeBufferPointer(start: storage + start, count: Int(starts[id + 1]) - start)
    }

    func text(_ id: Int) -> ArraySlice<UInt8> {
        ArraySlice(bytes(id))
    }

    func length(_ id: Int) -> Int { Int(starts[id + 1] - starts[id]) }
}
