// Fixed-slot parallel maps: every result goes into the slot of its index, so the output order never
// depends on scheduling. Sized by the core count; one core runs the same code on one worker.

import Dispatch
import Foundation
import Synchronization

public enum Parallel {
    /// The workers to use for `items` independent items: the cores, at most one per item, at least one.
    public static func workers(for items: Int = .max) -> Int {
        max(1, min(cores, items))
    }

    /// Read once: on Linux `activeProcessorCount` opens and reads two cgroup files at every call, and a diff's
    /// report asks once per part of its flips.
    private static let cores = ProcessInfo.processInfo.activeProcessorCount

    /// `body(i)` for every i in 0..<count on all cores; results in index order. Items are handed to whichever
    /// core is free, so items of unequal cost (the DFAs of a matcher) keep every core busy.
    public static func map<T>(_ count: Int, _ body: (Int) -> T) -> [T] {
        if workers(for: count) == 1 { return (0..<count).map(body) }
        var slots = [T?](repeating: nil, count: count)
        slots.withUnsafeMutableBufferPointer { buffer in
            let out = buffer // each index is written by exactly one worker
            DispatchQueue.concurrentPerform(iterations: count) { i in out[i] = body(i) }
        }
        return slots.map { $0! }
    }

    /// Two independent computations at once; single-threaded when there is one core.
    public static func both<A, B>(_ a: () -> A, _ b: () -> B) -> (A, B) {
        if workers(for: 2) == 1 { return (a(), b()) }
        var first: A? = nil, second: B? = nil
        withUnsafeMutablePointer(to: &first) { first in
            withUnsafeMutablePointer(to: &second) { second in
                DispatchQueue.concurrentPerform(iterations: 2) { i in
                    if i == 0 { first.pointee = a() } else { second.pointee = b() }
                }
            }
        }
        return (first!, second!)
    }

    /// `first()` and `body(i)` for every i in 0..<count, as the items of one parallel map on every core, `first`
    /// handed out before the others: one long computation beside many short ones keeps every core busy to the end,
    /// the short items going to whichever core is free. Not `both` with a `map` inside: a `concurrentPerform`
    /// nested in another gets one thread on two cores, which ran the short items one after the other.
    public static func alongside<A, T>(_ first: () -> A, _ count: Int, _ body: (Int) -> T) -> (A, [T]) {
        if workers(for: count + 1) == 1 { return (first(), (0..<count).map(body)) }
        var head: A? = nil
        var slots = [T?](repeating: nil, count: count)
        withUnsafeMutablePointer(to: &head) { head in
            slots.withUnsafeMutableBufferPointer { buffer in
                let out = buffer // each index is written by exactly one worker
                // Dispatch hands the indices out in increasing order: 0, the long item, goes first.
                DispatchQueue.concurrentPerform(iterations: count + 1) { i in
                    if i == 0 { head.pointee = first() } else { out[i - 1] = body(i - 1) }
                }
            }
        }
        return (head!, slots.map { $0! })
    }

    /// `count` items in `parts` shares of consecutive items, as equal as can be (the first `count % parts`
    /// shares one item longer); no empty share unless `count` is 0 (then one).
    public static func shares(_ count: Int, parts: Int) -> [Range<Int>] {
        let n = max(1, min(parts, count))
        let size = count / n, longer = count % n
        return (0..<n).map { i in
            let lo = i * size + min(i, longer)
            return lo..<(lo + size + (i < longer ? 1 : 0))
        }
    }

    /// Splits 0..<count into one consecutive share per worker and runs `body(share)` for each at once;
    /// results in share order.
    public static func mapShares<T>(_ count: Int, workers: Int, _ body: (Range<Int>) -> T) -> [T] {
        let size = (count + workers - 1) / max(workers, 1)
        var slots = [T?](repeating: nil, count: workers)
        slots.withUnsafeMutableBufferPointer { out in
            let out = out // each worker writes only its own slot
            DispatchQueue.concurrentPerform(iterations: workers) { w in
                let lo = min(count, w * size), hi = min(count, lo + size)
                out[w] = body(lo..<hi)
            }
        }
        return slots.map { $0! }
    }

    /// A computation on a thread of its own, started now and joined when its result is needed: work that
    /// nothing waits for until the end (a diff's rule and dataset comparison) runs in the gaps that the other
    /// stages leave on the cores (a serial step, the end of a chunk), not before them. A thread of its own, not
    /// Dispatch's pool, whose threads the stages' parallel maps use. Runs at once on one core.
    public final class Background<T>: @unchecked Sendable {
        private var result: T?
        private let done = DispatchSemaphore(value: 0)

        public init(_ body: @escaping () -> T) {
            if workers() == 1 {
                result = body()
                done.signal()
                return
            }
            let thread = Thread { [self] in
                result = body()
                done.signal()
            }
            thread.stackSize = 8 << 20
            thread.start()
        }

        /// Waits for the result (a later call waits no more).
        public func join() -> T {
            done.wait()
            defer { done.signal() }
            return result!
        }
    }

    /// Lets go of `values` on another thread: their deallocation runs beside what the caller does next, not
    /// before it (a diff's report is written while the workers' caches are freed). At once on one core.
    static func releaseBeside<T>(_ values: inout [T]) {
        guard workers() > 1, !values.isEmpty else {
            values = []
            return
        }
        let doomed = Doomed(values)
        values = []
        DispatchQueue.global().async { doomed.values = [] }
    }

    /// Values handed to another thread to be freed there: the last reference is dropped by that thread.
    private final class Doomed<T>: @unchecked Sendable {
        var values: [T]
        init(_ values: [T]) { self.values = values }
    }

    /// A stream of items through every core, chunk by chunk: `fill` appends the next chunk to an empty
    /// array (false once the input is exhausted); `work` runs a block of consecutive items of the chunk with the
    /// state of the worker that took it, and `consume` gets the blocks' results in item order, with the chunk's
    /// size (false stops the stream). The workers' states are copies of `state` (an engine with its caches is
    /// large), made only once a chunk has items for them: never more than the cores. `state` itself is not worked
    /// with: each worker's state is this function's alone, and is freed on another thread (`releaseBeside`) while
    /// the caller goes on (a worker's caches hold hundreds of thousands of objects).
    ///
    /// While a chunk is worked on, one worker first consumes the results of the chunk before it, then fills the
    /// next one, then takes blocks; blocks go to whichever worker is free. On two cores, filling between chunks
    /// and waiting for the slower half of each left a core idle for a twentieth of `match --requests`, and
    /// consuming between chunks left one idle at every chunk of a diff (its flips are recorded as they are
    /// consumed). Memory holds two chunks and the results of one. `fill` and `consume` run one at a time and in
    /// order, on whichever thread, while the workers work on another chunk: they must not touch the state a
    /// worker is using. After `consume` says stop, the chunk being worked on is finished and not consumed.
    public static func stream<Item, State, T>(
        state: State, copy: (State) -> State,
        fill: (inout [Item]) throws -> Bool,
        work: (inout State, Slice<UnsafeBufferPointer<Item>>) -> T,
        consume: ([T], Int) throws -> Bool
    ) throws {
        var states: [State] = []
        defer { releaseBeside(&states) }
        var chunk: [Item] = []
        var more = try fill(&chunk)
        var next: [Item] = []
        // The results of the chunk before, consumed while the next one is worked on.
        var pending: (results: [T], count: Int)? = nil
        while !chunk.isEmpty || more {
            if chunk.isEmpty {
                if let p = pending {
                    pending = nil
                    if try !consume(p.results, p.count) { return }
                }
                more = try fill(&chunk)
                continue
            }
            while states.count < workers(for: chunk.count) { states.append(copy(state)) }
            next.removeAll(keepingCapacity: true)
            var nextMore = false
            var fillError: Error? = nil, consumeError: Error? = nil
            var stopped = false
            let fillNext = more, previous = pending
            pending = nil
            let results = chunk.withUnsafeBufferPointer { items in
                mapBlocks(
                    items.count, states: &states,
                    first: {
                        if let previous {
                            do { stopped = try !consume(previous.results, previous.count) } catch {
                                consumeError = error
                            }
                            if stopped || consumeError != nil { return }
                        }
                        guard fillNext else { return }
                        do { nextMore = try fill(&next) } catch { fillError = error }
                    }
                ) { state, block in work(&state, items[block]) }
            }
            if let consumeError { throw consumeError }
            if stopped { return }
            // A chunk read before the input failed is still consumed, as it would be had it been read alone.
            if let fillError {
                _ = try consume(results, chunk.count)
                throw fillError
            }
            pending = (results, chunk.count)
            swap(&chunk, &next)
            more = fillNext && nextMore
        }
        if let p = pending { _ = try consume(p.results, p.count) }
    }

    /// `body` for consecutive blocks of 0..<count, handed to whichever worker is free, each with that worker's
    /// state; results in block order. Worker 0 runs `first` before taking blocks.
    private static func mapBlocks<State, T>(
        _ count: Int, states: inout [State], first: () -> Void,
        _ body: (inout State, Range<Int>) -> T
    ) -> [T] {
        let workers = states.count
        // Blocks small enough to even out the workers, large enough that taking one costs nothing.
        let size = max(1, min(512, count / (workers * 8)))
        let blocks = (count + size - 1) / size
        var slots = [T?](repeating: nil, count: blocks)
        let taken = Atomic<Int>(0)
        slots.withUnsafeMutableBufferPointer { out in
            states.withUnsafeMutableBufferPointer { states in
                let (out, states) = (out, states) // a block's slot is written by the worker that took it
                DispatchQueue.concurrentPerform(iterations: workers) { w in
                    if w == 0 { first() }
                    while true {
                        let b = taken.wrappingAdd(1, ordering: .relaxed).oldValue
                        if b >= blocks { return }
                        out[b] = body(&states[w], b * size..<min(count, (b + 1) * size))
                    }
                }
            }
        }
        return slots.map { $0! }
    }
}
