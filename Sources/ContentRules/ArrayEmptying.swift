// Emptying a scratch array that is refilled many times.

extension Array where Element: BitwiseCopyable {
    /// Empties the array and keeps its storage, as `removeAll(keepingCapacity: true)` does. That one goes through
    /// the generic `replaceSubrange` even when there is nothing to remove, about 80 instructions a call; `match`
    /// empties several scratch arrays of a few elements for every request (docs/matching.md). A few elements are
    /// dropped one by one (a count decrement each), more at once.
    @inlinable
    public mutating func emptyKeepingCapacity() {
        if count > 8 {
            removeAll(keepingCapacity: true)
        } else {
            while !isEmpty { removeLast() }
        }
    }
}
