// Filters added and removed between two sets of filter lists, compared as multisets of filter text (a filter that
// moved to another line or list is the same filter), each named by its list and line; network and cosmetic
// filters alike. Lines that are no filter (comments, headers) are not compared.

import FilterLists
import StrictJSON

public struct FilterListDiff: Sendable, Equatable {
    /// One filter, where its side holds it.
    public struct Entry: Sendable, Equatable {
        public var list: String
        public var line: Int
        public var filter: String

        public init(list: String, line: Int, filter: String) {
            self.list = list
            self.line = line
            self.filter = filter
        }

        public var jsonValue: JSONValue {
            ["list": .string(list), "line": .number(Double(line)), "filter": .string(filter)]
        }

        /// `easyprivacy.txt:1234: ||tracker.example^`
        public var text: String { "\(list):\(line): \(filter)" }
    }

    /// Filters only in the new lists / only in the old ones, each in its side's order (list by list, line order).
    public var added: [Entry] = []
    public var removed: [Entry] = []
    public var isEmpty: Bool { added.isEmpty && removed.isEmpty }

    public init() {}

    public static func compare(old: [FilterList], new: [FilterList]) -> FilterListDiff {
        let a = entries(old), b = entries(new)
        var diff = FilterListDiff()
        diff.added = unmatched(b, against: a)
        diff.removed = unmatched(a, against: b)
        return diff
    }

    /// The entries of `side` whose text `other` holds fewer times than `side` does so far (by bytes: `ExactString`).
    static func unmatched(_ side: [Entry], against other: [Entry]) -> [Entry] {
        var remaining: [ExactString: Int] = [:]
        for e in other { remaining[ExactString(string: e.filter), default: 0] += 1 }
        return side.filter { e in
            let key = ExactString(string: e.filter)
            guard let n = remaining[key], n > 0 else { return true }
            remaining[key] = n - 1
            return false
        }
    }

    /// Every filter of `lists`, list by list, in line order.
    static func entries(_ lists: [FilterList]) -> [Entry] {
        lists.flatMap { list in
            let lines = list.network.map { ($0.line, $0.text) } + list.cosmetic.map { ($0.line, $0.text) }
            return lines.sorted { $0.0 < $1.0 }.map { Entry(list: list.name, line: $0.0, filter: $0.1) }
        }
    }

    public var jsonValue: JSONValue {
        [
            "added": .number(Double(added.count)), "removed": .number(Double(removed.count)),
            "addedFilters": .array(added.map(\.jsonValue)), "removedFilters": .array(removed.map(\.jsonValue)),
        ]
    }
}
