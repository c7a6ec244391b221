// A diff side that holds filter lists (and `match` on a filter-list file): a filter-list file given as OLD or NEW
// (converted as `convert --filter-list` converts it, for the default target), and the filter lists of any other
// side (a release's, once it holds them), each added as a `FilterListSide`: the parsed list, for the filter diff
// and the derived corpus, and its converted rules with their provenance, which decide requests and name the filter
// and line that decided.

import AdblockSyntax
import ContentRules
import Digest
import FileIO
import FilterLists
import Provenance
import Release
import RuleCompiler
import RuleDiff
import RuleEngine

/// One converted filter list of a diff side.
public struct FilterListSide {
    public var list: FilterList
    public var rules: [ContentRule]
    /// Parallel to `rules`.
    public var provenance: [RuleProvenance]

    public init(list: FilterList, rules: [ContentRule], provenance: [RuleProvenance]) {
        self.list = list
        self.rules = rules
        self.provenance = provenance
    }

    /// `list` converted as `convert --filter-list` converts it by default.
    public init(converting list: FilterList, target: EngineProfile = .portable) {
        let conversion = FilterListConverter.convert(list, target: target)
        self.init(list: list, rules: conversion.rules, provenance: conversion.provenance)
    }

    /// Whether a file's bytes are a filter list rather than JSON: JSON starts with `{` or `[` (after white space),
    /// a filter list with anything else, or with a `[Adblock Plus 2.0]`-style header line (`[`, a letter, `]` at
    /// the line's end).
    public static func isFilterList(_ bytes: [UInt8]) -> Bool {
        guard let first = bytes.firstIndex(where: { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) })
        else { return false }
        switch bytes[first] {
        case UInt8(ascii: "{"): return false
        case UInt8(ascii: "["):
            let end = bytes[first...].firstIndex(of: 0x0A) ?? bytes.endIndex
            var line = bytes[first..<end]
            while let last = line.last, [0x20, 0x09, 0x0D].contains(last) { line = line.dropLast() }
            guard line.count > 2, let letter = line.dropFirst().first else { return false }
            let isLetter = (letter | 0x20) >= UInt8(ascii: "a") && (letter | 0x20) <= UInt8(ascii: "z")
            return isLetter && line.last == UInt8(ascii: "]")
        default: return true
        }
    }

    /// The compile budget of a filter list's automata: EasyPrivacy and EasyList together fit the default, but a
    /// release's lists may have been built with `build --max-total-dfa-states`, and `diff` must read what `build`
    /// wrote (the budget bounds memory, not what a rule means).
    public static let budget = CompileBudget(totalStates: 40_000_000)
}

extension FilterListSide {
    /// The list's rules compiled for deciding requests (its source embedded, for `--explain`).
    public func compiled() throws -> LoadedRuleList {
        try LoadedRuleList.compiling(
            json: CanonicalRuleWriter.bytes(rules),
            options: .init(
                name: RuleListIdentifier.defaultName(forPath: list.name), embedSource: true,
                budget: FilterListSide.budget))
    }
}

extension DiffSide {
    /// A filter-list file: one list, its rules the side's main list.
    public init(filterList bytes: [UInt8], path: String) throws {
        let name = String(path.split(separator: "/").last ?? Substring(path))
        let side = FilterListSide(converting: try FilterListParser.parse(bytes, name: name))
        let loaded = try side.compiled()
        self.init(label: path, identifier: loaded.identifier)
        components["filter-list.sha256"] = Digest.hex(.sha256, bytes)
        rules = side.rules
        record(side, loaded, file: ReleaseFiles.rules)
    }

    /// Adds a converted filter list beside the side's other lists (a list of its own, as WebKit loads it): it
    /// decides requests, its filters are compared with the other side's, and its rules are reported as the list
    /// `file`.
    public mutating func add(_ side: FilterListSide, file: String) throws {
        record(side, try side.compiled(), file: file)
    }

    private mutating func record(_ side: FilterListSide, _ loaded: LoadedRuleList, file: String) {
        lists.append(loaded)
        provenance.append(side.provenance)
        filterLists.append(side.list)
        listRecords.append(ListRecord(name: file, identifier: loaded.identifier, rules: side.rules))
    }
}
