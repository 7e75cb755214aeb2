/// Token texts in one contiguous buffer with an open-addressing hash index,
/// so a 262k-token vocabulary loads without a String or Array per token and
/// lookups by byte slice allocate nothing.
struct TokenTextTable: Sendable {
    private(set) var storage: [UInt8] = []
    /// Start of token i's text; `starts[count]` is the end of the last one.
    private(set) var starts: [Int32] = [0]
    private var slots: [Int32] = []
    private var mask = 0

    var count: Int { starts.count - 1 }

    init(capacity: Int, byteCapacity: Int) {
        storage.reserveCapacity(byteCapacity)
        starts.reserveCapacity(capacity + 1)
    }

    mutating func append(_ text: UnsafeRawBufferPointer) {
        storage.append(contentsOf: text)
        starts.append(Int32(storage.count))
    }

    mutating func append(_ text: [UInt8]) {
        text.withUnsafeBytes { append($0) }
    }

    @inline(__always)
    private static func hash(_ bytes: UnsafeRawBufferPointer) -> Int {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01B3 }
        return Int(truncatingIfNeeded: h ^ (h >> 29))
    }

    /// Builds the index. Later ids win for duplicate texts (as in llama.cpp).
    mutating func buildIndex() {
        var size = 16
        while size < count * 2 { size <<= 1 }
        mask = size - 1
        slots = [Int32](repeating: -1, count: size)
        storage.withUnsafeBytes { all in
            for id in 0..<count {
                let text = UnsafeRawBufferPointer(rebasing: all[Int(starts[id])..<Int(starts[id + 1])])
                var slot = Self.hash(text) & mask
                while true {
                    let existing = slots[slot]
                    if existing < 0 { slots[slot] = Int32(id); break }
                    let other = UnsafeRawBufferPointer(rebasing: all[Int(starts[Int(existing)])..<Int(starts[Int(existing) + 1])])
                    if other.elementsEqual(text) { slots[slot] = Int32(id); break }
                    slot = (slot + 1) & mask
                }
            }
        }
    }

    func lookup(_ text: UnsafeRawBufferPointer) -> Int32? {
        guard !slots.isEmpty else { return nil }
        var slot = Self.hash(text) & mask
        return storage.withUnsafeBytes { all -> Int32? in
            while true {
                let id = slots[slot]
                if id < 0 { return nil }
                let start = Int(starts[Int(id)]), end = Int(starts[Int(id) + 1])
                if end - start == text.count, memcmpEqual(all.baseAddress! + start, text.baseAddress, text.count) { return id }
                slot = (slot + 1) & mask
            }
        }
    }

    func lookup(_ text: [UInt8]) -> Int32? {
        text.withUnsafeBytes { lookup($0) }
    }

    func text(_ id: Int) -> ArraySlice<UInt8> {
        storage[Int(starts[id])..<Int(starts[id + 1])]
    }

    func length(_ id: Int) -> Int { Int(starts[id + 1] - starts[id]) }
}

@inline(__always)
private func memcmpEqual(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer?, _ n: Int) -> Bool {
    guard let b else { return n == 0 }
    var i = 0
    while i < n {
        if a.load(fromByteOffset: i, as: UInt8.self) != b.load(fromByteOffset: i, as: UInt8.self) { return false }
        i += 1
    }
    return true
}
