// Little-endian writing and bounds-checked reading of the .rbc sections (RBCFile).

struct ByteWriter {
    var bytes: [UInt8] = []
    mutating func u32(_ v: UInt32) { for i in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * UInt32(i)))) } }
    mutating func u64(_ v: UInt64) { for i in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(i)))) } }
    mutating func string(_ s: String) {
        let utf8 = Array(s.utf8)
        u32(UInt32(utf8.count))
        bytes.append(contentsOf: utf8)
    }
}

struct ByteReader {
    let data: UnsafeRawBufferPointer
    let end: Int
    var position: Int

    init(_ data: UnsafeRawBufferPointer, range: Range<Int>) {
        self.data = data
        position = range.lowerBound
        end = range.upperBound
    }

    struct Truncated: Error, CustomStringConvertible {
        var description: String { "truncated data" }
    }

    mutating func take(_ n: Int) throws -> UnsafeRawBufferPointer {
        guard n >= 0, n <= end - position else { throw Truncated() }
        defer { position += n }
        return UnsafeRawBufferPointer(rebasing: data[position..<position + n])
    }

    mutating func u32() throws -> UInt32 {
        let b = try take(4)
        return UInt32(b[0]) | UInt32(b[1]) << 8 | UInt32(b[2]) << 16 | UInt32(b[3]) << 24
    }

    mutating func u64() throws -> UInt64 {
        let b = try take(8)
        var v: UInt64 = 0
        for i in 0..<8 { v |= UInt64(b[i]) << (8 * UInt64(i)) }
        return v
    }

    mutating func string() throws -> String {
        let n = Int(try u32())
        let b = try take(n)
        guard let s = String(validating: b, as: UTF8.self) else { throw Truncated() }
        return s
    }
}
