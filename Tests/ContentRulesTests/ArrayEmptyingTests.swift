@testable import ContentRules
import XCTest

final class ArrayEmptyingTests: XCTestCase {
    /// Empty, a few elements (dropped one by one) and more (at once): each ends empty with its storage kept, and is
    /// filled again from the start.
    func testEmptiesAndKeepsTheStorage() {
        for count in [0, 1, 3, 8, 9, 100] {
            var a = Array(0..<Int32(count))
            a.reserveCapacity(128)
            let capacity = a.capacity
            a.emptyKeepingCapacity()
            XCTAssertEqual(a, [], "\(count) elements")
            XCTAssertEqual(a.capacity, capacity, "\(count) elements")
            a.append(7)
            XCTAssertEqual(a, [7], "\(count) elements")
        }
    }

    /// An array that shares its storage is emptied alone: the other keeps its elements.
    func testASharedArrayIsEmptiedAlone() {
        for count in [3, 100] {
            var a = Array(0..<UInt8(count))
            let b = a
            a.emptyKeepingCapacity()
            XCTAssertEqual(a, [])
            XCTAssertEqual(b, Array(0..<UInt8(count)))
        }
    }
}
