// Fixed-slot parallel maps: every result goes into the slot of its index, so the output order never
// depends on scheduling. Sized by the core count; one core runs the same code on one worker.

import Dispatch
import Foundation

public enum Parallel {
    /// The workers to use for `items` independent items: the cores, at most one per item, at least one.
    public static func workers(for items: Int = .max) -> Int {
        max(1, min(ProcessInfo.processInfo.activeProcessorCount, items))
    }

    /// `body(i)` for every i in 0..<count on all cores; results in index order. Items are handed to whichever
    /// core is free, so items of unequal cost (the DFAs of a matcher) keep every core busy.
    public static func map<T>(_ count: Int, _ body: (Int) -> T) -> [T] {
        if workers(for: count) == 1 { return (0..<count).map(body) }
        var slots = [T?](repeating: nil, count: count)
        slots.withUnsafeMutableBufferPointer { buffer in
            let out = buffer  // each index is written by exactly one worker
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

    /// Splits 0..<count into one consecutive share per state and runs `body(&states[w], share)` for each at
    /// once: a worker keeps its own state (an engine copy with its caches) across calls. Results in share
    /// order, so concatenating them keeps the order of the items.
    public static func mapShares<State, T>(_ count: Int, states: inout [State], _ body: (inout State, Range<Int>) -> T) -> [T] {
        states.withUnsafeMutableBufferPointer { states in
            let states = states  // each worker touches only its own index
            return sharesByWorker(count, workers: states.count) { w, share in body(&states[w], share) }
        }
    }

    /// Splits 0..<count into one consecutive share per worker and runs `body(share)` for each at once;
    /// results in share order.
    public static func mapShares<T>(_ count: Int, workers: Int, _ body: (Range<Int>) -> T) -> [T] {
        sharesByWorker(count, workers: workers) { _, share in body(share) }
    }

    private static func sharesByWorker<T>(_ count: Int, workers: Int, _ body: (Int, Range<Int>) -> T) -> [T] {
        let size = (count + workers - 1) / max(workers, 1)
        var slots = [T?](repeating: nil, count: workers)
        slots.withUnsafeMutableBufferPointer { out in
            let out = out  // each worker writes only its own slot
            DispatchQueue.concurrentPerform(iterations: workers) { w in
                let lo = min(count, w * size), hi = min(count, lo + size)
                out[w] = body(w, lo..<hi)
            }
        }
        return slots.map { $0! }
    }

    /// A stream of items through every core, chunk by chunk: `fill` appends the next chunk to an empty
    /// array (false once the input is exhausted), the chunk is split into one consecutive share per worker,
    /// `work` runs a share with that worker's own state, and `consume` gets the shares' results in order
    /// with the chunk's size (false stops the stream). Memory holds one chunk. The workers' states are
    /// copies of `state` (an engine with its caches is large), made only once a chunk has items for them:
    /// never more than the cores.
    public static func stream<Item, State, T>(state: State, copy: (State) -> State,
                                              fill: (inout [Item]) throws -> Bool,
                                              work: (inout State, Slice<UnsafeBufferPointer<Item>>) -> T,
                                              consume: ([T], Int) throws -> Bool) rethrows {
        var states = [state]
        var chunk: [Item] = []
        var more = true
        while more {
            chunk.removeAll(keepingCapacity: true)
            more = try fill(&chunk)
            if chunk.isEmpty { continue }
            while states.count < workers(for: chunk.count) { states.append(copy(state)) }
            let results = chunk.withUnsafeBufferPointer { items in
                mapShares(items.count, states: &states) { state, share in work(&state, items[share]) }
            }
            if try !consume(results, chunk.count) { return }
        }
    }
}
