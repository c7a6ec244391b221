// Comparing the two sides of a diff (DiffSide: a release directory, a TDS file or a rule-list JSON): loaded one
// per core, then their components, trackers and rules (in the background) and their decisions on a corpus.

import FileIO
import Foundation
import Parallel
import Provenance
import Release
import RuleBuilder
import RuleDiff
import RuleEngine
import TrackerData

public struct DiffOptions {
    /// Config used to convert a side given as a TDS file.
    public var config: String?
    public var mode: RuleBuildMode = .faithful
    /// Requests to evaluate; nil derives a corpus from the datasets (or none when no side has a TDS).
    public var requests: [MatchRequest]?
    public init() {}
}

public enum ReleaseComparison {
    public static func load(_ path: String, options: DiffOptions) throws -> DiffSide {
        try DiffSide.load(path, options: options)
    }

    /// Both sides of a diff at once, one per core (each is independent of the other).
    public static func loadBoth(_ a: String, _ b: String, options: DiffOptions) throws -> (DiffSide, DiffSide) {
        let (old, new) = Parallel.both(
            { Result { try loadNamingPath(a, options: options) } },
            { Result { try loadNamingPath(b, options: options) } })
        return (try old.get(), try new.get())
    }

    /// `load`, where every error names the file it is about (errors from deep inside a release name a file
    /// within it already).
    static func loadNamingPath(_ path: String, options: DiffOptions) throws -> DiffSide {
        do {
            return try load(path, options: options)
        } catch {
            let message = String(describing: error)
            if message.hasPrefix(path) { throw error }
            throw FileError(path: path, reason: message)
        }
    }

    public static func compare(_ old: DiffSide, _ new: DiffSide, options: DiffOptions) throws -> DiffReport {
        let requests: RequestStream = options.requests.map { ArrayRequests($0) } ?? derivedCorpus(old, new)
        return try compare(old, new, requests: requests)
    }

    /// As `compare`, with the requests read from a stream (a corpus larger than memory) instead of
    /// `options.requests`; `progress` gets the number of requests checked so far.
    /// `structure` is `structure(old, new)` when the caller started it already (see derivedCorpusAndStructure).
    public static func compare(
        _ old: DiffSide, _ new: DiffSide, requests stream: RequestStream, structure known: StructureInBackground? = nil,
        progress: ((Int) -> Void)? = nil
    ) throws -> DiffReport {
        let structure = known ?? backgroundStructure(old, new)
        let requests = try DecisionDiff.compare(
            stream, old: decisionSide(old), new: decisionSide(new), attribution: attribution(old, new),
            progress: progress)
        return report(old, new, structure: structure.join(), requests: requests.checked == 0 ? nil : requests)
    }

    /// The corpus derived from both sides' datasets (empty when neither has a TDS), then the one derived from their
    /// filter lists (FilterCorpus), when a side holds some.
    public static func derivedCorpus(_ old: DiffSide, _ new: DiffSide) -> RequestStream {
        let datasets = RequestCorpus.stream(from: [old.tds, new.tds].compactMap { $0 })
        let filterLists = old.filterLists + new.filterLists
        guard !filterLists.isEmpty else { return datasets }
        return ChainedRequests([datasets, ArrayRequests(FilterCorpus.derive(from: filterLists))])
    }

    /// The derived corpus as a stream, and the structure of the diff started in the background: the decisions
    /// need the corpus first, and nothing needs the structure until the report.
    public static func derivedCorpusAndStructure(_ old: DiffSide, _ new: DiffSide) -> (
        RequestStream, StructureInBackground
    ) {
        let structure = backgroundStructure(old, new)
        return (derivedCorpus(old, new), structure)
    }

    /// `structure(old, new)` on a thread of its own. It is single-threaded (the rule keys are most of it), and
    /// the corpus and the decisions leave gaps on the cores that it fills: a serial step, the end of a chunk.
    static func backgroundStructure(_ old: DiffSide, _ new: DiffSide) -> StructureInBackground {
        Parallel.Background { structure(old, new) }
    }

    /// What the background thread compares: changed components, the dataset diff and the rule diff. The filter
    /// lists and the per-list changes are compared after the decisions: moved to the background, they saved no
    /// time that the bench could see (docs/matching.md).
    public struct Structure: Sendable {
        var inputs: [String: ValueChange<String?>]
        var dataset: DatasetDiff?
        var rules: RuleSetDiff
    }
    public typealias StructureInBackground = Parallel.Background<Structure>

    static func structure(_ old: DiffSide, _ new: DiffSide) -> Structure {
        let rules = RuleSetDiff.compare(
            old: old.rules, new: new.rules, oldProvenance: old.mainProvenance, newProvenance: new.mainProvenance)
        return Structure(inputs: changedInputs(old, new), dataset: datasetDiff(old, new), rules: rules)
    }

    static func changedInputs(_ old: DiffSide, _ new: DiffSide) -> [String: ValueChange<String?>] {
        var inputs: [String: ValueChange<String?>] = [:]
        for key in Set(old.components.keys).union(new.components.keys) where old.components[key] != new.components[key]
        {
            inputs[key] = ValueChange(old: old.components[key], new: new.components[key])
        }
        return inputs
    }

    static func datasetDiff(_ old: DiffSide, _ new: DiffSide) -> DatasetDiff? {
        guard let a = old.tds, let b = new.tds else { return nil }
        return DatasetDiff.compare(a, b)
    }

    /// Which tracker and entity a flip belongs to: the new side's dataset first.
    static func attribution(_ old: DiffSide, _ new: DiffSide) -> FlipAttribution {
        FlipAttribution(datasets: [new.tds, old.tds].compactMap { $0 })
    }

    static func decisionSide(_ side: DiffSide) -> DecisionSide {
        DecisionSide(lists: side.lists, provenance: side.provenance, surrogates: side.surrogates)
    }

    static func filterListDiff(_ old: DiffSide, _ new: DiffSide) -> FilterListDiff? {
        guard !old.filterLists.isEmpty || !new.filterLists.isEmpty else { return nil }
        return FilterListDiff.compare(old: old.filterLists, new: new.filterLists)
    }

    static func listChanges(_ old: DiffSide, _ new: DiffSide, rules: RuleSetDiff) -> [ListChange] {
        guard !old.listRecords.isEmpty, !new.listRecords.isEmpty else { return [] }
        // With one main list on each side, its rule comparison is the report's own.
        let known = old.mainListCount == 1 && new.mainListCount == 1 ? [ReleaseFiles.rules: rules] : [:]
        return ListChange.compare(old: old.listRecords, new: new.listRecords, known: known)
    }

    static func report(_ old: DiffSide, _ new: DiffSide, structure: Structure, requests: DecisionDiff?) -> DiffReport {
        var report = DiffReport(
            identifier: ValueChange(old: old.identifier, new: new.identifier), inputs: structure.inputs,
            dataset: structure.dataset, rules: structure.rules, requests: requests)
        report.attribution = attribution(old, new)
        report.filters = filterListDiff(old, new)
        report.lists = listChanges(old, new, rules: structure.rules)
        return report
    }
}
