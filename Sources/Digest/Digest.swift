// Message digests through OpenSSL's libcrypto (Debian libssl-dev): SHA-256 for artifact hashes and
// identifiers, SHA-1 and MD5 where DuckDuckGo's identifier scheme and config hashes use them.

import CCrypto

public enum DigestAlgorithm: Sendable {
    case sha256, sha1, md5

    fileprivate var evp: OpaquePointer? {
        switch self {
        case .sha256: return EVP_sha256()
        case .sha1: return EVP_sha1()
        case .md5: return EVP_md5()
        }
    }
}

/// An incremental digest; a reference type because it owns an OpenSSL context.
public final class Digest {
    private let context: OpaquePointer
    private var finished = false

    public init(_ algorithm: DigestAlgorithm) {
        context = EVP_MD_CTX_new()!
        EVP_DigestInit_ex(context, algorithm.evp, nil)
    }

    deinit { EVP_MD_CTX_free(context) }

    public func update(_ bytes: UnsafeRawBufferPointer) {
        if let base = bytes.baseAddress { EVP_DigestUpdate(context, base, bytes.count) }
    }

    public func update<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        if let done = bytes.withContiguousStorageIfAvailable({ update(UnsafeRawBufferPointer($0)) }) { return done }
        let copy = Array(bytes)
        copy.withUnsafeBytes { update($0) }
    }

    public func finalize() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        precondition(!finished, "Digest finalized twice")
        finished = true
        EVP_DigestFinal_ex(context, &out, &length)
        return Array(out.prefix(Int(length)))
    }

    public static func hash<C: Collection>(_ algorithm: DigestAlgorithm, _ bytes: C) -> [UInt8]
    where C.Element == UInt8 {
        let d = Digest(algorithm)
        d.update(bytes)
        return d.finalize()
    }

    public static func hex<C: Collection>(_ algorithm: DigestAlgorithm, _ bytes: C) -> String where C.Element == UInt8 {
        hexString(hash(algorithm, bytes))
    }

    public static func hex(_ algorithm: DigestAlgorithm, _ string: String) -> String {
        hex(algorithm, Array(string.utf8))
    }
}

public func hexString<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count * 2)
    for b in bytes {
        out.append(digits[Int(b >> 4)])
        out.append(digits[Int(b & 0xF)])
    }
    return String(decoding: out, as: UTF8.self)
}
