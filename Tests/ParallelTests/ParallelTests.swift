import Dispatch
import Foundation
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

    func testSharesCoverEveryItemOnceInOrder() {
        for (count, workers) in [(10, 3), (2, 4), (0, 2), (7, 1), (16384, 2)] {
            let shares = Parallel.mapShares(count, workers: workers) { $0 }
            XCTAssertEqual(shares.count, workers)
            XCTAssertEqual(shares.flatMap { Array($0) }, Array(0..<count), "count \(count), workers \(workers)")
        }
    }

    func testEqualSharesCoverEveryItemOnceInOrderWithinOneOfEachOther() {
        for (count, parts) in [(10, 3), (2, 4), (0, 2), (7, 1), (16384, 5), (9, 9), (100, 7)] {
            let shares = Parallel.shares(count, parts: parts)
            XCTAssertEqual(shares.count, max(1, min(parts, count)), "count \(count), parts \(parts)")
            XCTAssertEqual(shares.flatMap { Array($0) }, Array(0..<count), "count \(count), parts \(parts)")
            let sizes = shares.map(\.count)
            XCTAssertLessThanOrEqual(sizes.max()! - sizes.min()!, 1, "count \(count), parts \(parts)")
            XCTAssertEqual(sizes, sizes.sorted(by: >), "the longer shares first")
            if count > 0 { XCTAssertFalse(sizes.contains(0)) }
        }
    }

    func testAlongsideRunsTheFirstAndEveryItemInItsPlace() {
        let (sum, squares) = Parallel.alongside({ (0..<1000).reduce(0, +) }, 257) { i -> Int in
            if i % 7 == 0 { usleep(200) }
            return i * i
        }
        XCTAssertEqual(sum, 499500)
        XCTAssertEqual(squares, (0..<257).map { $0 * $0 })
        let (first, none) = Parallel.alongside({ "first" }, 0) { $0 }
        XCTAssertEqual(first, "first")
        XCTAssertEqual(none, [])
    }

    func testBothReturnsEachResultInItsPlace() {
        let (a, b) = Parallel.both({ (0..<1000).reduce(0, +) }, { "second" })
        XCTAssertEqual(a, 499500)
        XCTAssertEqual(b, "second")
    }

    func testStreamKeepsItemOrderAcrossChunksAndCopiesStatesOnlyWhenNeeded() throws {
        // Chunks of 5, 5, 5, 2 and 0 items (the last fill appends nothing).
        let sizes = [5, 5, 5, 2, 0]
        var next = 0, chunk = 0, copies = 0
        var seen: [Int] = [], counts: [Int] = []
        try Parallel.stream(
            state: 0,
            copy: { s -> Int in
                copies += 1; return s
            },
            fill: { items in
                items.append(contentsOf: next..<next + sizes[chunk])
                next += sizes[chunk]
                chunk += 1
                return chunk < sizes.count
            },
            work: { calls, share -> [Int] in
                calls += 1
                return share.map { $0 * 10 }
            },
            consume: { results, count in
                seen += results.flatMap { $0 }
                counts.append(count)
                return true
            })
        XCTAssertEqual(seen, (0..<17).map { $0 * 10 })
        XCTAssertEqual(counts, [5, 5, 5, 2], "an empty chunk is not worked on")
        XCTAssertEqual(copies, Parallel.workers(for: 5), "one state per core, each a copy")
    }

    func testStreamMakesOneCopyForASingleItemAndStopsWhenConsumeSaysSo() throws {
        var copies = 0, fills = 0, consumed = 0
        try Parallel.stream(
            state: "engine",
            copy: { s -> String in
                copies += 1; return s
            },
            fill: { items in
                fills += 1
                items.append(fills)
                return true // an endless input
            },
            work: { _, share in share.count },
            consume: { results, _ in
                consumed += results.reduce(0, +)
                return consumed < 3
            })
        XCTAssertEqual(copies, 1, "one item needs one worker: one copy of the state")
        XCTAssertEqual(fills, 4, "the chunk after the last one consumed was read while that one was worked on")
        XCTAssertEqual(consumed, 3)
    }

    func testStreamHandsBlocksToWhicheverWorkerIsFreeAndKeepsTheirOrder() throws {
        // Items of very unequal cost, in chunks of 1,000: every item is worked on once, results in item order.
        var next = 0
        var seen: [Int] = []
        try Parallel.stream(
            state: 0, copy: { $0 },
            fill: { items in
                items.append(contentsOf: next..<min(next + 1000, 3500))
                next = min(next + 1000, 3500)
                return next < 3500
            },
            work: { _, block -> [Int] in
                block.map { i in
                    var x = i
                    for _ in 0..<(i % 97 == 0 ? 20000 : 10) { x = (x &* 31) &+ 7 }
                    return x == .min ? -1 : i
                }
            },
            consume: { results, _ in
                seen += results.flatMap { $0 }
                return true
            })
        XCTAssertEqual(seen, Array(0..<3500))
    }

    func testStreamConsumesTheChunkReadBeforeTheInputFailedThenThrows() {
        struct ReadFailed: Error {}
        var fills = 0
        var consumed: [Int] = []
        XCTAssertThrowsError(
            try Parallel.stream(
                state: 0, copy: { $0 },
                fill: { items in
                    fills += 1
                    if fills == 2 { throw ReadFailed() }
                    items.append(contentsOf: 0..<100)
                    return true
                },
                work: { _, block in Array(block) },
                consume: { results, _ in
                    consumed += results.flatMap { $0 }
                    return true
                })
        ) { XCTAssertTrue($0 is ReadFailed) }
        XCTAssertEqual(consumed, Array(0..<100), "the first chunk's results are consumed before the error")
    }

    func testStreamConsumesEachChunkWhileTheNextIsWorkedOn() throws {
        // Chunk k+1's items wait until chunk k is consumed: with two or more cores they are worked on at the same
        // time, so the stream would hang if consume ran only after every chunk's work. With one core the chunk is
        // consumed first, and the wait passes at once.
        let consumed = DispatchSemaphore(value: 0)
        var chunks = 0, seen: [Int] = []
        try Parallel.stream(
            state: 0, copy: { $0 },
            fill: { items in
                chunks += 1
                items.append(contentsOf: (0..<4).map { chunks * 10 + $0 })
                return chunks < 3
            },
            work: { _, share -> [Int] in
                if let first = share.first, first >= 20, first % 10 == 0, Parallel.workers() > 1 {
                    XCTAssertEqual(
                        consumed.wait(timeout: .now() + 10), .success, "chunk \(first / 10 - 1) consumed meanwhile")
                }
                return Array(share)
            },
            consume: { results, _ in
                seen += results.flatMap { $0 }
                consumed.signal()
                return true
            })
        XCTAssertEqual(seen, [10, 11, 12, 13, 20, 21, 22, 23, 30, 31, 32, 33])
    }

    func testStreamRethrowsWhatConsumeThrowsAndConsumesNothingAfter() {
        struct WriteFailed: Error {}
        var fills = 0, consumed = 0
        XCTAssertThrowsError(
            try Parallel.stream(
                state: 0, copy: { $0 },
                fill: { items in
                    fills += 1
                    items.append(fills)
                    return true
                },
                work: { _, share in share.count },
                consume: { _, _ in
                    consumed += 1
                    if consumed == 2 { throw WriteFailed() }
                    return true
                })
        ) { XCTAssertTrue($0 is WriteFailed) }
        XCTAssertEqual(consumed, 2)
    }

    func testBackgroundGivesItsResultToEveryJoin() {
        let started = DispatchSemaphore(value: 0)
        let task = Parallel.Background { () -> Int in
            started.signal()
            return (1...100).reduce(0, +)
        }
        XCTAssertEqual(started.wait(timeout: .now() + 10), .success, "the body runs without a join")
        XCTAssertEqual(task.join(), 5050)
        XCTAssertEqual(task.join(), 5050)
    }

    func testStreamWorksOnCopiesAndFreesThemOffTheCallersThread() throws {
        let freed = FreedOn()
        let given = Tracked(freed, given: true)
        var blocksOnTheGivenState = 0
        try Parallel.stream(
            state: given, copy: { Tracked($0.freed, given: false) },
            fill: { items in
                items.append(contentsOf: 0..<64)
                return false
            },
            work: { state, _ -> Int in state.given ? 1 : 0 },
            consume: { results, _ in
                blocksOnTheGivenState += results.reduce(0, +)
                return true
            })
        XCTAssertEqual(blocksOnTheGivenState, 0, "the state given is not worked with")
        XCTAssertEqual(freed.wait(count: Parallel.workers(for: 64)), .success, "every copy is freed")
        let caller = pthread_self()
        if Parallel.workers() > 1 {
            XCTAssertFalse(freed.threads.contains { pthread_equal($0, caller) != 0 }, "freed beside the caller")
        } else {
            XCTAssertTrue(freed.threads.allSatisfy { pthread_equal($0, caller) != 0 }, "one core: freed at once")
        }
        withExtendedLifetime(given) {}
    }

    func testReleaseBesideEmptiesTheArrayAndFreesItsValues() {
        let freed = FreedOn()
        var values = [Tracked(freed, given: false), Tracked(freed, given: false)]
        Parallel.releaseBeside(&values)
        XCTAssertTrue(values.isEmpty)
        XCTAssertEqual(freed.wait(count: 2), .success)
    }
}

/// Where the `Tracked` values of a test were freed.
private final class FreedOn: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [pthread_t] = []
    private let done = DispatchSemaphore(value: 0)

    var threads: [pthread_t] { lock.withLock { list } }

    func note() {
        lock.withLock { list.append(pthread_self()) }
        done.signal()
    }

    func wait(count: Int) -> DispatchTimeoutResult {
        for _ in 0..<count where done.wait(timeout: .now() + 10) == .timedOut { return .timedOut }
        return .success
    }
}

private final class Tracked: @unchecked Sendable {
    let freed: FreedOn
    let given: Bool
    init(_ freed: FreedOn, given: Bool) {
        self.freed = freed
        self.given = given
    }
    deinit { if !given { freed.note() } }
}
