/// A name of up to 16 bytes as two words (and its length), compared without a loop: request names are short.
struct PackedName: Equatable {
    var low: UInt64 = 0, high: UInt64 = 0, count: Int

    init?(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count <= 16 else { return nil }
        count = bytes.count
        for (i, b) in bytes.enumerated() {
            if i < 8 { low |= UInt64(b) << (8 * UInt64(i)) } else { high |= UInt64(b) << (8 * UInt64(i - 8)) }
        }
    }

    init?(_ s: String) {
        var s = s
        guard let p = s.withUTF8({ PackedName($0) }) else { return nil }
        self = p
    }
}
