// One side of a diff, made by one initializer per kind of side: a release directory (manifest, lists,
// provenance, input copies: every part of the report), a TDS file (converted as `build` converts it, with the
// given config), a rule-list JSON (rules and decisions only), a filter list (FilterListSide.swift: converted as
// `convert --filter-list` converts it, with its filters), and a build's products before they are published (its
// --previous comparison). `DiffSide.load` tells a path's kind.

import AdblockSyntax
import ContentRules
import Conversion
import Digest
import FileIO
import FilterLists
import Foundation
import Provenance
import Release
import RuleBuilder
import RuleCompiler
import RuleDiff
import RuleEngine
import StrictJSON
import Surrogates
import TrackerData

public struct DiffSide {
    public let label: String
    public let identifier: String?
    /// Component identifiers plus "<input>.sha256" for every input.
    public internal(set) var components: [String: String] = [:]
    public private(set) var tds: TrackerDataSet?
    /// The main list's rules (click-to-load lists are reported per list).
    public internal(set) var rules: [ContentRule] = []
    /// Provenance per list, parallel to each list's rules.
    public internal(set) var provenance: [[RuleProvenance]] = []
    /// The lists that decide requests.
    public internal(set) var lists: [LoadedRuleList] = []
    /// The lists by name (main parts first, then the side lists), for the per-list report.
    public internal(set) var listRecords: [ListRecord] = []
    /// How many of `lists` are the main list's parts.
    public private(set) var mainListCount = 1
    /// The filter lists the side holds (a filter-list file; a release's filter lists): their filters are compared
    /// and give the corpus their requests; their rules are among `lists`.
    public internal(set) var filterLists: [FilterList] = []
    /// The surrogates a release's bundle is made from (its input surrogates.txt; none without one): a TDS rule
    /// naming another surrogate blocks, as the page gets no replacement. Nil for a side given as a TDS file.
    public private(set) var surrogateNames: Set<String>?
    /// What loading the side has to say (a release's list compiled from its JSON: `ReleaseList.recompiledNote`).
    public private(set) var notes: [String] = []

    init(label: String, identifier: String?, tds: TrackerDataSet? = nil) {
        self.label = label
        self.identifier = identifier
        self.tds = tds
    }

    /// Provenance of the main list when it is one list (split parts are diffed by their rules only).
    var mainProvenance: [RuleProvenance]? { mainListCount == 1 && !provenance.isEmpty ? provenance[0] : nil }

    /// Surrogate names by (tracker, rule index), for telling "surrogate" from "blocked".
    var surrogates: [TDSRuleID: String] { ReleaseSurrogates.byRule(tds: tds, names: surrogateNames) }

    /// The side `path` names: a release directory, a filter list (FilterListSide.isFilterList), a rule list (a JSON
    /// array) or a TDS (an object with trackers).
    public static func load(_ path: String, options: DiffOptions) throws -> DiffSide {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
            throw FileError(path: path, reason: "no such file or directory")
        }
        if isDir.boolValue { return try DiffSide(release: path) }
        let bytes = try FileIO.read(path)
        if FilterListSide.isFilterList(bytes) { return try DiffSide(filterList: bytes, path: path) }
        let json: JSONValue
        do { json = try JSONParser.parse(bytes) } catch let e as JSONParseError {
            throw FileError(path: path, reason: "invalid JSON at line \(e.line), column \(e.column): \(e.message)")
        }
        if json.arrayValue != nil { return try DiffSide(ruleList: bytes, path: path) }
        guard json["trackers"] != nil else {
            throw FileError(
                path: path,
                reason: "neither a release directory, a TDS (no \"trackers\") nor a rule list (not an array)")
        }
        return try DiffSide(tds: bytes, path: path, options: options)
    }

    /// A rule-list JSON: its rules and decisions.
    public init(ruleList bytes: [UInt8], path: String) throws {
        let list = try LoadedRuleList.compiling(
            json: bytes, options: .init(name: RuleListIdentifier.defaultName(forPath: path), embedSource: true))
        let parsed = try RuleListParser.parse(bytes: bytes)
        self.init(label: path, identifier: list.identifier)
        rules = parsed.rules.compactMap { if case .content(let r) = $0.kind { return r } else { return nil } }
        lists = [list]
        listRecords = [ListRecord(name: ReleaseFiles.rules, identifier: list.identifier, rules: rules)]
        components["rules.sha256"] = Digest.hex(.sha256, bytes)
    }

    /// A TDS, converted with `options.config` as `build` converts it (optimized: decisions are the same either
    /// way, deciding rules are not). Every list decides: the click-to-load lists (an app installs them all unless
    /// the user clicked to load) and the attribution list (swapped only while an attribution is active).
    public init(tds bytes: [UInt8], path: String, options: DiffOptions) throws {
        let (tds, _) = try TrackerDataSet.decode(bytes: bytes, source: path, strict: false)
        var config: PrivacyConfig?
        var components: [String: String] = ["tds.sha256": Digest.hex(.sha256, bytes)]
        if let c = options.config {
            let cb = try FileIO.read(c)
            config = try PrivacyConfig.decode(bytes: cb, source: c, strict: false).0
            components["config.sha256"] = Digest.hex(.sha256, cb)
        }
        let conversion = Conversion.convert(
            tds: tds, config: config, unprotected: nil,
            options: ConversionOptions(mode: options.mode, splitAttribution: true, target: EngineProfile.portable))
        var compiled: [(ConvertedList, name: String, list: LoadedRuleList)] = []
        for list in conversion.lists {
            let name = list.kind.rulesFile
            let loaded = try LoadedRuleList.compiling(
                json: CanonicalRuleWriter.bytes(list.rules),
                options: .init(
                    name: RuleListIdentifier.defaultName(forPath: list.kind == .main ? path : name),
                    embedSource: true))
            compiled.append((list, name, loaded))
        }
        self.init(label: path, identifier: compiled.first?.list.identifier, tds: tds)
        self.components = components
        rules = conversion.result.rules
        for (list, name, loaded) in compiled {
            lists.append(loaded)
            provenance.append(list.provenance)
            listRecords.append(
                ListRecord(name: name, identifier: loaded.identifier, ruleAction: list.ruleAction, rules: list.rules))
        }
    }

    /// A published release.
    public init(release dir: String) throws {
        let (manifest, lists) = try ReleaseLists.load(dir)
        self.init(label: dir, identifier: manifest.identifier, tds: try ReleaseSurrogates.dataset(ofRelease: dir))
        components = Self.components(of: manifest)
        surrogateNames = try ReleaseSurrogates.names(.directory(dir))
        mainListCount = lists.filter(\.isMain).count
        for list in lists {
            if let note = list.recompiledNote(release: dir) { notes.append(note) }
            let rules = try list.contentRules()
            listRecords.append(list.record(rules: rules))
            // The cookie pop-up list blocks nothing: it takes no part in decisions (its off-sites reset would be
            // named as the rule that let a load through).
            if list.role == .cookiePopups { continue }
            self.lists.append(list.list)
            // Split releases repeat exception rules in every part: provenance.json covers the unsplit list
            // (ReleaseLists gives it to that list only), so parts are diffed by their rules only.
            provenance.append(list.provenance ?? [])
            if list.isMain { self.rules += rules }
        }
    }

    /// A build's products before they are published: `lists` as ReleaseLists reads them, the main list's rules
    /// and provenance the builder's, unsplit.
    init(
        newRelease manifest: Manifest, tds: TrackerDataSet, rules: [ContentRule], provenance: [RuleProvenance],
        lists: [ReleaseList], files: ReleaseFileSource
    ) throws {
        self.init(label: "new release", identifier: manifest.identifier, tds: tds)
        self.rules = rules
        surrogateNames = try ReleaseSurrogates.names(files)
        components = Self.components(of: manifest)
        let main = lists.filter(\.isMain)
        self.lists = main.map(\.list)
        mainListCount = main.count
        self.provenance = main.count > 1 ? main.map { _ in [] } : [provenance]
        listRecords = try lists.map { try $0.record(rules: $0.contentRules()) }
        for ctl in lists where ctl.role == .clickToLoad {
            self.lists.append(ctl.list)
            self.provenance.append(ctl.provenance ?? [])
        }
    }

    /// A manifest's component identifiers and the SHA-256 of each input.
    static func components(of manifest: Manifest) -> [String: String] {
        var components = manifest.components
        for (input, record) in manifest.inputs { components[input.rawValue + ".sha256"] = record.sha256 }
        return components
    }
}

extension ConvertedList {
    /// The click-to-load action of a click-to-load list.
    var ruleAction: String? {
        if case .clickToLoad(let ruleAction) = kind { return ruleAction }
        return nil
    }
}
