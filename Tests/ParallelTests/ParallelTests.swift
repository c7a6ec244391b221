import XCTest
@testable import Parallel

final class ParallelTests: XCTestCase {
    func testMapKeepsIndexOrderWhateverTheScheduling() {
        // Uneven work per item so that workers finish out of order.
        let squares = Parallel.map(257) { i -> Int in
            if i % 7 == 0 { usleep(200) }
            return i * i
        }
        XCTAssertEqual(squares, (0..<257).map { $0 * $0 })
        XCTAssertEqual(Parallel.map(0) { $0 }, [])
    }

    func testWorkersAreBoundedByItemsAndCores() {
        XCTAssertEqual(Parallel.workers(for: 1), 1)
        XCTAssertEqual(Parallel.workers(for: 0), 1)
        XCTAssertEqual(Parallel.workers(), max(1, ProcessInfo.processInfo.activeProcessorCount))
    }

    func testSharesCoverEveryItemOnceInOrderWithTheirOwnState() {
        for (count, workers) in [(10, 3), (2, 4), (0, 2), (7, 1), (16384, 2)] {
            var states = Array(repeating: 0, count: workers)
            let shares = Parallel.mapShares(count, states: &states) { calls, share -> Range<Int> in
                calls += 1
                return share
            }
            XCTAssertEqual(shares.count, workers)
            XCTAssertEqual(shares.flatMap { Array($0) }, Array(0..<count), "count \(count), workers \(workers)")
            XCTAssertEqual(states, Array(repeating: 1, count: workers), "each worker's state is its own")
        }
    }

    func testBothReturnsEachResultInItsPlace() {
        let (a, b) = Parallel.both({ (0..<1000).reduce(0, +) }, { "second" })
        XCTAssertEqual(a, 499500)
        XCTAssertEqual(b, "second")
    }
}
