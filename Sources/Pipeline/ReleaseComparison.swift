// Loading the two sides of a diff (a release directory, a TDS file, or a rule-list JSON) and comparing
// them. A release directory carries its manifest, rule lists, provenance and input copies, so every part
// of the report (components, trackers, rules, decisions) is available; a TDS is converted first (with the
// given config); a bare rule list gives rules and decisions only.

import ContentRules
import Digest
import FileIO
import Foundation
import RuleBuilder
import RuleCompiler
import RuleDiff
import RuleEngine
import StrictJSON
import TrackerData

public struct DiffSide {
    public var label: String
    public var identifier: String?
    /// Component identifiers plus "<input>.sha256" for every input.
    public var components: [String: String] = [:]
    public var tds: TrackerDataSet?
    public var rules: [ContentRule] = []
    /// Provenance per list, parallel to each list's rules.
    public var provenance: [[JSONValue]] = []
    public var lists: [LoadedRuleList] = []

    /// Surrogate names by (tracker, rule index), for telling "surrogate" from "blocked".
    var surrogates: [String: String] {
        guard let tds else { return [:] }
        var out: [String: String] = [:]
        for (domain, tracker) in tds.trackers {
            for (i, rule) in tracker.rules.enumerated() {
                if let s = rule.surrogate { out[DecisionSide.surrogateKey(tracker: domain, rule: i)] = s }
            }
        }
        return out
    }
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
            let list = try LoadedRuleList.compiling(json: bytes, options: .init(name: RuleListIdentifier.defaultName(forPath: path), embedSource: true))
            let parsed = try RuleListParser.parse(bytes: bytes)
            var side = DiffSide(label: path, identifier: list.identifier)
            side.rules = parsed.rules.compactMap { if case .content(let r) = $0.kind { return r } else { return nil } }
            side.lists = [list]
            side.components["rules.sha256"] = Digest_sha256(bytes)
            return side
        }
        guard json["trackers"] != nil else {
            throw FileError(path: path, reason: "neither a release directory, a TDS (no \"trackers\") nor a rule list (not an array)")
        }
        return try convertTDS(bytes: bytes, path: path, options: options)
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
        let built = RuleBuilder.build(tds: tds, config: config, unprotectedSites: nil, mode: options.mode)
        let json = CanonicalRuleWriter.bytes(built.rules)
        let list = try LoadedRuleList.compiling(json: json, options: .init(name: RuleListIdentifier.defaultName(forPath: path), embedSource: true))
        var side = DiffSide(label: path, identifier: list.identifier, components: components, tds: tds, rules: built.rules)
        side.provenance = [built.provenance.map(\.jsonValue)]
        side.lists = [list]
        return side
    }

    static func loadRelease(_ dir: String) throws -> DiffSide {
        let (manifest, lists) = try ReleaseLists.load(dir)
        var side = DiffSide(label: dir, identifier: manifest.identifier)
        side.components = manifest.components
        for (name, record) in manifest.inputs { side.components[name + ".sha256"] = record.sha256 }
        let tdsPath = dir + "/" + ReleaseFiles.inputTDS
        if FileManager.default.fileExists(atPath: tdsPath) {
            side.tds = try TrackerDataSet.decode(bytes: try FileIO.read(tdsPath), source: tdsPath, strict: false).0
        }
        for list in lists {
            side.lists.append(list.list)
            side.provenance.append(list.provenance ?? [])
            guard !list.json.isEmpty else { continue }
            let parsed = try RuleListParser.parse(bytes: list.json)
            side.rules += parsed.rules.compactMap { r -> ContentRule? in if case .content(let c) = r.kind { return c } else { return nil } }
        }
        return side
    }

    public static func compare(_ old: DiffSide, _ new: DiffSide, options: DiffOptions) -> DiffReport {
        let (inputs, dataset, rules) = structure(old, new)
        let corpus = options.requests ?? derivedCorpus(old, new)
        let requests = corpus.isEmpty ? nil : DecisionDiff.compare(corpus, old: decisionSide(old), new: decisionSide(new))
        return report(old, new, rules: rules, inputs: inputs, dataset: dataset, requests: requests)
    }

    /// As `compare`, with the requests read from a stream (a corpus larger than memory) instead of
    /// `options.requests`; `progress` gets the number of requests checked so far.
    public static func compare(_ old: DiffSide, _ new: DiffSide, requests stream: RequestStream,
                               progress: ((Int) -> Void)? = nil) throws -> DiffReport {
        let (inputs, dataset, rules) = structure(old, new)
        let requests = try DecisionDiff.compare(stream, old: decisionSide(old), new: decisionSide(new), progress: progress)
        return report(old, new, rules: rules, inputs: inputs, dataset: dataset, requests: requests.checked == 0 ? nil : requests)
    }

    /// The corpus derived from both sides' datasets (empty when neither has a TDS).
    public static func derivedCorpus(_ old: DiffSide, _ new: DiffSide) -> [MatchRequest] {
        RequestCorpus.derive(from: [old.tds, new.tds].compactMap { $0 })
    }

    /// Components, trackers and rules: everything but the decisions.
    static func structure(_ old: DiffSide, _ new: DiffSide) -> ([String: ValueChange<String?>], DatasetDiff?, RuleSetDiff) {
        var inputs: [String: ValueChange<String?>] = [:]
        for key in Set(old.components.keys).union(new.components.keys) where old.components[key] != new.components[key] {
            inputs[key] = ValueChange(old: old.components[key], new: new.components[key])
        }
        var dataset: DatasetDiff?
        if let a = old.tds, let b = new.tds { dataset = DatasetDiff.compare(a, b) }
        let rules = RuleSetDiff.compare(old: old.rules, new: new.rules,
                                        oldProvenance: old.provenance.count == 1 ? old.provenance[0] : nil,
                                        newProvenance: new.provenance.count == 1 ? new.provenance[0] : nil)
        return (inputs, dataset, rules)
    }

    static func decisionSide(_ side: DiffSide) -> DecisionSide {
        DecisionSide(lists: side.lists, provenance: side.provenance, surrogates: side.surrogates)
    }

    static func report(_ old: DiffSide, _ new: DiffSide, rules: RuleSetDiff, inputs: [String: ValueChange<String?>],
                       dataset: DatasetDiff?, requests: DecisionDiff?) -> DiffReport {
        DiffReport(identifier: ValueChange(old: old.identifier, new: new.identifier), inputs: inputs, dataset: dataset,
                          rules: rules, requests: requests)
    }
}

/// `changes.md` / `changes.json` of a release built with --previous.
public struct ReleaseChanges {
    public let report: DiffReport
    public var markdown: String { report.markdown }
    public var json: JSONValue { report.json }

    static func compare(previousRelease: String, newManifest: Manifest, newTDS: TrackerDataSet, newRules: [ContentRule],
                        newProvenance: [RuleProvenance], newLists: [LoadedRuleList]) throws -> ReleaseChanges {
        let old = try ReleaseComparison.loadRelease(previousRelease)
        var new = DiffSide(label: "new release", identifier: newManifest.identifier, tds: newTDS, rules: newRules)
        new.components = newManifest.components
        for (name, record) in newManifest.inputs { new.components[name + ".sha256"] = record.sha256 }
        new.provenance = [newProvenance.map(\.jsonValue)]
        new.lists = newLists
        return ReleaseChanges(report: ReleaseComparison.compare(old, new, options: DiffOptions()))
    }
}
