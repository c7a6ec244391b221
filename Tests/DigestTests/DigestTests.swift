import XCTest
@testable import Digest

final class DigestTests: XCTestCase {
    func testKnownVectors() {
        XCTAssertEqual(Digest.hex(.sha256, "abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(Digest.hex(.sha1, "abc"), "a9993e364706816aba3e25717850c26c9cd0d89d")
        XCTAssertEqual(Digest.hex(.md5, ""), "d41d8cd98f00b204e9800998ecf8427e")
    }

    func testIncrementalEqualsOneShot() {
        let d = Digest(.sha256)
        d.update(Array("ab".utf8))
        d.update(Array("c".utf8))
        XCTAssertEqual(hexString(d.finalize()), Digest.hex(.sha256, "abc"))
    }
}
