// Loading the two sides of a diff (a release directory, a TDS file, or a rule-list JSON) and comparing
// them. A release directory carries its manifest, rule lists, provenance and input copies, so every part
// of the report (components, trackers, rules, decisions) is available; a TDS is converted first (with the
// given config); a bare rule list gives rules and decisions only.

import ContentRules
import Digest
import FileIO
import Foundation
import Parallel
import Provenance
import RuleBuilder
import RuleCompiler
import RuleDiff
import RuleEngine
import StrictJSON
import Surrogates
import TrackerData

public struct DiffSide {
    public var label: String
    public var identifier: String?
    /// Component identifiers plus "<input>.sha256" for every input.
    public var components: [String: String] = [:]
    public var tds: TrackerDataSet?
    public var rules: [ContentRule] = []
    /// Provenance per list, parallel to each list's rules.
    public var provenance: [[RuleProvenance]] = []
    public var lists: [LoadedRuleList] = []
    /// The lists by name (main parts first, then click-to-load lists), for the per-list report.
    public var listRecords: [ListRecord] = []
    /// How many of `lists` are the main list's parts (the rest are click-to-load lists).
    public var mainListCount = 1

    /// Provenance of the main list when it is one list (split parts are diffed by their rules only).
    var mainProvenance: [RuleProvenance]? { mainListCount == 1 && !provenance.isEmpty ? provenance[0] : nil }

    /// Surrogate names by (tracker, rule index), for telling "surrogate" from "blocked".
    var surrogates: [TDSRuleID: String] {
        let all = tds.map(DecisionSide.surrogates) ?? [:]
        guard let names = surrogateNames else { return all }
        return all.filter { names.contains($0.value) }
    }
    /// The surrogates a release's bundle is made from (its input surrogates.txt; none without one): a TDS rule
    /// naming another surrogate blocks, as the page gets no replacement. Nil for a side given as a TDS file.
    public var surrogateNames: Set<String>?
}

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
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
            throw FileError(path: path, reason: "no such file or directory")
        }
        if isDir.boolValue { return try loadRelease(path) }
        let bytes = try FileIO.read(path)
        let json: JSONValue
        do { json = try JSONParser.parse(bytes) } catch let e as JSONParseError {
            throw FileError(path: path, reason: "invalid JSON at line \(e.line), column \(e.column): \(e.message)")
        }
        if json.arrayValue != nil {
            let list = try LoadedRuleList.compiling(
                json: bytes, options: .init(name: RuleListIdentifier.defaultName(forPath: path), embedSource: true))
            let parsed = try RuleListParser.parse(bytes: bytes)
            var side = DiffSide(label: path, identifier: list.identifier)
            side.rules = parsed.rules.compactMap { if case .content(let r) = $0.kind { return r } else { return nil } }
            side.lists = [list]
            side.listRecords = [ListRecord(name: "rules.json", identifier: list.identifier, rules: side.rules)]
            side.components["rules.sha256"] = Digest_sha256(bytes)
            return side
        }
        guard json["trackers"] != nil else {
            throw FileError(
                path: path,
                reason: "neither a release directory, a TDS (no \"trackers\") nor a rule list (not an array)")
        }
        return try convertTDS(bytes: bytes, path: path, options: options)
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

    static func Digest_sha256(_ bytes: [UInt8]) -> String { Digest.hex(.sha256, bytes) }

    static func convertTDS(bytes: [UInt8], path: String, options: DiffOptions) throws -> DiffSide {
        let (tds, _) = try TrackerDataSet.decode(bytes: bytes, source: path, strict: false)
        var config: PrivacyConfig?
        var components: [String: String] = ["tds.sha256": Digest_sha256(bytes)]
        if let c = options.config {
            let cb = try FileIO.read(c)
            config = try PrivacyConfig.decode(bytes: cb, source: c, strict: false).0
            components["config.sha256"] = Digest_sha256(cb)
        }
        // The lists `build` would make (optimized): decisions are the same either way, deciding rules are not.
        let built = RuleListOptimizer.optimize(
            RuleBuilder.build(
                tds: tds, config: config, unprotectedSites: nil, mode: options.mode, splitAttribution: true)
        ).0
        let json = CanonicalRuleWriter.bytes(built.rules)
        let list = try LoadedRuleList.compiling(
            json: json, options: .init(name: RuleListIdentifier.defaultName(forPath: path), embedSource: true))
        var side = DiffSide(
            label: path, identifier: list.identifier, components: components, tds: tds, rules: built.rules)
        side.provenance = [built.provenance]
        side.lists = [list]
        side.listRecords = [ListRecord(name: "rules.json", identifier: list.identifier, rules: built.rules)]
        // The click-to-load lists decide too (an app installs them all unless the user clicked to load).
        for ctl in built.clickToLoadLists {
            let ctlJSON = CanonicalRuleWriter.bytes(ctl.rules)
            let name = "ctl-\(ctl.ruleAction).json"
            let compiled = try LoadedRuleList.compiling(
                json: ctlJSON, options: .init(name: RuleListIdentifier.defaultName(forPath: name), embedSource: true))
            side.lists.append(compiled)
            side.provenance.append(ctl.provenance)
            side.listRecords.append(
                ListRecord(name: name, identifier: compiled.identifier, ruleAction: ctl.ruleAction, rules: ctl.rules))
        }
        // So does the ad-click attribution list (the app swaps it only while an attribution is active).
        if let attribution = built.attributionList {
            let json = CanonicalRuleWriter.bytes(attribution.rules)
            let compiled = try LoadedRuleList.compiling(
                json: json,
                options: .init(
                    name: RuleListIdentifier.defaultName(forPath: ReleaseFiles.attributionRules), embedSource: true))
            side.lists.append(compiled)
            side.provenance.append(attribution.provenance)
            side.listRecords.append(
                ListRecord(
                    name: ReleaseFiles.attributionRules, identifier: compiled.identifier, rules: attribution.rules))
        }
        return side
    }

    static func loadRelease(_ dir: String) throws -> DiffSide {
        let (manifest, lists) = try ReleaseLists.load(dir)
        var side = DiffSide(label: dir, identifier: manifest.identifier)
        side.components = manifest.components
        for (name, record) in manifest.inputs { side.components[name + ".sha256"] = record.sha256 }
        side.tds = try dataset(ofRelease: dir)
        side.surrogateNames = try surrogateNames(.directory(dir))
        side.mainListCount = lists.filter(\.isMain).count
        for list in lists {
            let rules = try list.contentRules()
            side.listRecords.append(list.record(rules: rules))
            // The cookie pop-up list blocks nothing: it takes no part in decisions (its off-sites reset would be
            // named as the rule that let a load through).
            if list.role == .cookiePopups { continue }
            side.lists.append(list.list)
            // Split releases repeat exception rules in every part: provenance.json covers the unsplit list
            // (ReleaseLists gives it to that list only), so parts are diffed by their rules only.
            side.provenance.append(list.provenance ?? [])
            // Click-to-load lists are reported per list, not with the main list's rules.
            if list.isMain { side.rules += rules }
        }
        return side
    }

    /// The TDS a release was built from (its input copy), when it has one.
    public static func dataset(ofRelease dir: String) throws -> TrackerDataSet? {
        let tdsPath = dir + "/" + ReleaseFiles.inputTDS
        guard FileManager.default.fileExists(atPath: tdsPath) else { return nil }
        return try TrackerDataSet.decode(bytes: try FileIO.read(tdsPath), source: tdsPath, strict: false).0
    }

    /// The names of the surrogates in a release's input surrogates.txt (none when it has none).
    static func surrogateNames(_ files: ReleaseFileSource) throws -> Set<String> {
        guard files.exists(ReleaseFiles.inputSurrogates) else { return [] }
        let name = files.path(ReleaseFiles.inputSurrogates)
        return Set(
            try SurrogatesFile.parse(bytes: try files.read(ReleaseFiles.inputSurrogates), source: name).map(\.name))
    }

    /// A release's TDS and the surrogates its pages get (by tracker and TDS rule index), as `diff` reads them.
    public static func surrogates(ofRelease dir: String) throws -> (
        tds: TrackerDataSet?, surrogates: [TDSRuleID: String]
    ) {
        var side = DiffSide(label: dir, tds: try dataset(ofRelease: dir))
        side.surrogateNames = try surrogateNames(.directory(dir))
        return (side.tds, side.surrogates)
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
            stream, old: decisionSide(old), new: decisionSide(new), progress: progress)
        let (inputs, dataset, rules) = structure.join()
        return report(
            old, new, rules: rules, inputs: inputs, dataset: dataset, requests: requests.checked == 0 ? nil : requests)
    }

    /// The corpus derived from both sides' datasets (empty when neither has a TDS).
    public static func derivedCorpus(_ old: DiffSide, _ new: DiffSide) -> DerivedRequests {
        RequestCorpus.stream(from: [old.tds, new.tds].compactMap { $0 })
    }

    /// The derived corpus as a stream, and the structure of the diff started in the background: the decisions
    /// need the corpus first, and nothing needs the structure until the report.
    public static func derivedCorpusAndStructure(_ old: DiffSide, _ new: DiffSide) -> (
        DerivedRequests, StructureInBackground
    ) {
        let structure = backgroundStructure(old, new)
        return (derivedCorpus(old, new), structure)
    }

    /// `structure(old, new)` on a thread of its own. It is single-threaded (the rule keys are most of it), and
    /// the corpus and the decisions leave gaps on the cores that it fills: a serial step, the end of a chunk.
    static func backgroundStructure(_ old: DiffSide, _ new: DiffSide) -> StructureInBackground {
        Parallel.Background { structure(old, new) }
    }

    /// Changed components, the dataset diff and the rule diff.
    public typealias Structure = ([String: ValueChange<String?>], DatasetDiff?, RuleSetDiff)
    public typealias StructureInBackground = Parallel.Background<Structure>

    /// Components, trackers and rules: everything but the decisions.
    static func structure(_ old: DiffSide, _ new: DiffSide) -> Structure {
        let rules = RuleSetDiff.compare(
            old: old.rules, new: new.rules, oldProvenance: old.mainProvenance, newProvenance: new.mainProvenance)
        return (changedInputs(old, new), datasetDiff(old, new), rules)
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

    static func decisionSide(_ side: DiffSide) -> DecisionSide {
        DecisionSide(lists: side.lists, provenance: side.provenance, surrogates: side.surrogates)
    }

    static func report(
        _ old: DiffSide, _ new: DiffSide, rules: RuleSetDiff, inputs: [String: ValueChange<String?>],
        dataset: DatasetDiff?, requests: DecisionDiff?
    ) -> DiffReport {
        var report = DiffReport(
            identifier: ValueChange(old: old.identifier, new: new.identifier), inputs: inputs, dataset: dataset,
            rules: rules, requests: requests)
        report.attribution = FlipAttribution(datasets: [new.tds, old.tds].compactMap { $0 })
        if !old.listRecords.isEmpty, !new.listRecords.isEmpty {
            // With one main list on each side, its rule comparison is the report's own.
            let known = old.mainListCount == 1 && new.mainListCount == 1 ? ["rules.json": rules] : [:]
            report.lists = ListChange.compare(old: old.listRecords, new: new.listRecords, known: known)
        }
        return report
    }
}

/// `changes.md` / `changes.json` of a release built with --previous.
public struct ReleaseChanges {
    public let report: DiffReport
    public func json() throws -> JSONValue { try report.json() }

    /// `newLists`: the new release's lists as ReleaseLists reads them (main parts and click-to-load lists);
    /// the main list's rules and provenance are the builder's, unsplit.
    static func compare(
        previousRelease: String, newManifest: Manifest, newTDS: TrackerDataSet, newRules: [ContentRule],
        newProvenance: [RuleProvenance], newLists: [ReleaseList], newFiles: ReleaseFileSource
    ) throws -> ReleaseChanges {
        let old = try ReleaseComparison.loadRelease(previousRelease)
        var new = DiffSide(label: "new release", identifier: newManifest.identifier, tds: newTDS, rules: newRules)
        new.surrogateNames = try ReleaseComparison.surrogateNames(newFiles)
        new.components = newManifest.components
        for (name, record) in newManifest.inputs { new.components[name + ".sha256"] = record.sha256 }
        let main = newLists.filter(\.isMain)
        new.lists = main.map(\.list)
        new.mainListCount = main.count
        new.provenance = main.count > 1 ? main.map { _ in [] } : [newProvenance]
        new.listRecords = try newLists.map { try $0.record(rules: $0.contentRules()) }
        for ctl in newLists where ctl.role == .clickToLoad {
            new.lists.append(ctl.list)
            new.provenance.append(ctl.provenance ?? [])
        }
        var report = try ReleaseComparison.compare(old, new, options: DiffOptions())
        report.corpus = CorpusDescription(kind: .derived)
        return ReleaseChanges(report: report)
    }

    /// changes.md: the bounded summary, with WebKit's compile cost change in its verdict when it was measured.
    public func markdown(compileCost: CompileCostChange?) throws -> String {
        try withCost(compileCost).markdown()
    }

    /// changes.html: the same as one self-contained page.
    public func html(compileCost: CompileCostChange?) throws -> String {
        try withCost(compileCost).html()
    }

    func withCost(_ compileCost: CompileCostChange?) -> DiffReport {
        var report = report
        report.compileCostLine = compileCost?.summaryLine
        report.compileCostMarkdown = compileCost?.markdown
        return report
    }
}
