// manifest.json: what a release is made of and how to check it. Deterministic: the same inputs give the
// same manifest bytes (no wall-clock times unless --verify-webkit records WebKit's own verification or
// `build --previous` WebKit's compile cost).

import RuleBuilder
import StrictJSON

/// The inputs a manifest records, by the key it records them under.
public enum ReleaseInput: String, CaseIterable, Comparable, Sendable {
    case config, surrogates, tds, unprotected

    public static func < (a: ReleaseInput, b: ReleaseInput) -> Bool { a.rawValue < b.rawValue }
}

/// The options a manifest records as flags (read back by `--if-changed` and the attribution variant). Written as
/// counts of 1, absent when off, so that a build without an option writes the manifest it wrote before the
/// option existed.
public struct ManifestFlags: Sendable, Equatable {
    /// surrogates.js reports every tracker request.
    public var trackerReport = false
    /// The optimization stage ran (not `--no-optimize`).
    public var optimized = false
    /// `--per-tracker-exemptions`.
    public var perTrackerExemptions = false

    public init(trackerReport: Bool = false, optimized: Bool = false, perTrackerExemptions: Bool = false) {
        self.trackerReport = trackerReport
        self.optimized = optimized
        self.perTrackerExemptions = perTrackerExemptions
    }

    /// Each flag with the count it is written as.
    var byCount: [(ManifestCount, Bool)] {
        [(.trackerReport, trackerReport), (.optimized, optimized), (.perTrackerExemptions, perTrackerExemptions)]
    }

    /// The flags of a manifest's counts, which keep the other counts.
    init(taking counts: inout [ManifestCount: Double]) {
        func take(_ count: ManifestCount) -> Bool { counts.removeValue(forKey: count) == 1 }
        self.init(
            trackerReport: take(.trackerReport), optimized: take(.optimized),
            perTrackerExemptions: take(.perTrackerExemptions))
    }
}

public struct InputRecord: Sendable, Equatable {
    public var source: String
    public var etag: String?
    public var lastModified: String?
    public var sha256: String
    public var bytes: Int
    /// Set when a fallback replaced or dropped this input; says why.
    public var fallback: String?

    public init(
        source: String, etag: String?, lastModified: String?, sha256: String, bytes: Int, fallback: String? = nil
    ) {
        self.source = source
        self.etag = etag
        self.lastModified = lastModified
        self.sha256 = sha256
        self.bytes = bytes
        self.fallback = fallback
    }

    var jsonValue: JSONValue {
        var o = JSONObject()
        o["source"] = .string(source)
        o["etag"] = etag.map(JSONValue.string) ?? .null
        o["lastModified"] = lastModified.map(JSONValue.string) ?? .null
        o["sha256"] = .string(sha256)
        o["bytes"] = .number(Double(bytes))
        if let fallback { o["fallback"] = .string(fallback) }
        return .object(o)
    }

    init?(json: JSONValue?) {
        guard let o = json?.objectValue, let source = o["source"]?.stringValue, let sha = o["sha256"]?.stringValue
        else { return nil }
        self.init(
            source: source, etag: o["etag"]?.stringValue, lastModified: o["lastModified"]?.stringValue,
            sha256: sha, bytes: Int(o["bytes"]?.numberValue ?? 0), fallback: o["fallback"]?.stringValue)
    }
}

/// One `--filter-list` of a release: its name (its file name, as the lists' `sources` and the provenance's `list`
/// say it), what was fetched, and the copy the release keeps. Written under `inputs.filterLists`, in the order
/// given (absent without filter lists).
public struct FilterListInput: Sendable, Equatable {
    public var name: String
    public var record: InputRecord
    /// The copy beside the manifest (ReleaseFiles.inputFilterList).
    public var copy: String

    public init(name: String, record: InputRecord, copy: String) {
        self.name = name
        self.record = record
        self.copy = copy
    }

    var jsonValue: JSONValue {
        guard case .object(var o) = record.jsonValue else { return record.jsonValue }
        o["name"] = .string(name)
        o["copy"] = .string(copy)
        return .object(o)
    }

    /// Decodes `inputs.filterLists[index]`; an error names the field.
    init(json: JSONValue, index: Int) throws {
        let at = "\"inputs\".filterLists[\(index)]"
        guard let record = InputRecord(json: json) else {
            throw ManifestError(reason: "\(at): not an input (source, sha256)")
        }
        guard let name = json["name"]?.stringValue else { throw ManifestError(reason: "\(at).name: missing") }
        guard let copy = json["copy"]?.stringValue else { throw ManifestError(reason: "\(at).copy: missing") }
        self.init(name: name, record: record, copy: copy)
    }
}

public struct OutputRecord: Sendable, Equatable {
    public var name: String
    public var sha256: String
    public var bytes: Int

    public init(name: String, sha256: String, bytes: Int) {
        self.name = name
        self.sha256 = sha256
        self.bytes = bytes
    }
}

public struct Manifest: Sendable, Equatable {
    public static let formatVersion = 1

    public var identifier: String
    public var toolVersion: String
    public var rbcFormatVersion: Int
    public var mode: RuleBuildMode
    public var inputs: [ReleaseInput: InputRecord]
    /// The `--filter-list`s, in the order given.
    public var filterLists: [FilterListInput] = []
    /// DuckDuckGo-style component identifiers (tdsEtag, tempListId, allowListId, unprotectedSitesHash).
    public var components: [String: String]
    public var outputs: [OutputRecord]
    /// Counts and deterministic compile figures (automata sizes, bytecode bytes, ...).
    public var counts: [ManifestCount: Double]
    /// The options recorded beside the counts.
    public var flags = ManifestFlags()
    /// The rule lists of this release in evaluation order (more than one when the rules were split).
    public var lists: [ManifestList]
    /// Present only with --verify-webkit.
    public var webKitVerification: ReleaseWebKitVerification?
    /// Present only when `build --previous` measured WebKit's compile cost (ReleaseCompileCost): like
    /// webKitVerification, wall-clock figures, the non-deterministic part of a manifest.
    public var webKitCompileCost: ReleaseCompileCost? = nil
    /// The engine profiles the release is for (`build --target`), the primary one first. Every entry of
    /// `lists` names its target; a loader of "the release's lists" takes those of one target (`lists(for:)`).
    public var targets: [String] = []

    public init(
        identifier: String, toolVersion: String, rbcFormatVersion: Int, mode: RuleBuildMode,
        inputs: [ReleaseInput: InputRecord], components: [String: String], outputs: [OutputRecord],
        counts: [ManifestCount: Double], flags: ManifestFlags = ManifestFlags(), lists: [ManifestList],
        webKitVerification: ReleaseWebKitVerification?, targets: [String] = []
    ) {
        self.identifier = identifier
        self.toolVersion = toolVersion
        self.rbcFormatVersion = rbcFormatVersion
        self.mode = mode
        self.inputs = inputs
        self.components = components
        self.outputs = outputs
        self.counts = counts
        self.flags = flags
        self.lists = lists
        self.webKitVerification = webKitVerification
        self.targets = targets
    }

    /// The list entries of one target (nil: the primary target). A manifest written before targets existed
    /// has no target fields: all of its lists.
    public func lists(for target: String? = nil) -> [ManifestList] {
        guard let wanted = target ?? targets.first else { return lists }
        return lists.filter { ($0.target ?? wanted) == wanted }
    }

    public var jsonValue: JSONValue {
        var o = JSONObject()
        o["manifestVersion"] = .number(Double(Manifest.formatVersion))
        o["identifier"] = .string(identifier)
        o["tool"] = ["name": "radarblock", "version": .string(toolVersion)]
        o["rbcFormatVersion"] = .number(Double(rbcFormatVersion))
        o["mode"] = .string(mode.rawValue)
        var inputsObject = JSONObject()
        for key in inputs.keys.sorted() { inputsObject[key.rawValue] = inputs[key]!.jsonValue }
        if !filterLists.isEmpty { inputsObject[Self.filterListsKey] = .array(filterLists.map(\.jsonValue)) }
        o["inputs"] = .object(inputsObject)
        var comp = JSONObject()
        for key in components.keys.sorted() { comp[key] = .string(components[key]!) }
        o["components"] = .object(comp)
        var outs = JSONObject()
        for out in outputs.sorted(by: { $0.name < $1.name }) {
            outs[out.name] = ["sha256": .string(out.sha256), "bytes": .number(Double(out.bytes))]
        }
        o["outputs"] = .object(outs)
        var written = counts
        for (count, on) in flags.byCount where on { written[count] = 1 }
        var c = JSONObject()
        for key in written.keys.sorted() { c[key.name] = .number(written[key]!) }
        o["counts"] = .object(c)
        o["lists"] = .array(lists.map(\.jsonValue))
        if !targets.isEmpty { o["targets"] = .array(targets.map(JSONValue.string)) }
        if let webKitVerification { o["webkitVerification"] = webKitVerification.jsonValue }
        if let webKitCompileCost { o["webkitCompileCost"] = webKitCompileCost.jsonValue }
        return .object(o)
    }

    public func bytes() -> [UInt8] {
        var out = JSONWriter.bytes(jsonValue, options: [])
        out.append(0x0A)
        return out
    }

    /// Reads a manifest; `mode`, the input keys, a recorded verification and compile cost are checked, and an
    /// error names the field (the caller names the file).
    public static func parse(_ bytes: [UInt8]) throws -> Manifest {
        let v = try JSONParser.parse(bytes)
        guard let o = v.objectValue, let id = o["identifier"]?.stringValue else {
            throw ManifestError(reason: "not a radarblock manifest (no identifier)")
        }
        var components: [String: String] = [:]
        for (k, value) in o["components"]?.objectValue ?? JSONObject() { components[k] = value.stringValue }
        var outputs: [OutputRecord] = []
        for (k, value) in o["outputs"]?.objectValue ?? JSONObject() {
            outputs.append(
                OutputRecord(
                    name: k, sha256: value["sha256"]?.stringValue ?? "", bytes: Int(value["bytes"]?.numberValue ?? 0)))
        }
        var counts: [ManifestCount: Double] = [:]
        for (k, value) in o["counts"]?.objectValue ?? JSONObject() { counts[.named(k)] = value.numberValue }
        let flags = ManifestFlags(taking: &counts)
        let lists = try (o["lists"]?.arrayValue ?? []).enumerated().map { try ManifestList(json: $1, index: $0) }
        var manifest = Manifest(
            identifier: id, toolVersion: o["tool"]?["version"]?.stringValue ?? "",
            rbcFormatVersion: Int(o["rbcFormatVersion"]?.numberValue ?? 0), mode: try mode(o["mode"]),
            inputs: try inputs(o["inputs"]), components: components, outputs: outputs, counts: counts, flags: flags,
            lists: lists, webKitVerification: try verification(o["webkitVerification"]),
            targets: o["targets"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        manifest.webKitCompileCost = try compileCost(o["webkitCompileCost"])
        manifest.filterLists = try filterLists(o["inputs"]?[filterListsKey])
        return manifest
    }

    static func mode(_ value: JSONValue?) throws -> RuleBuildMode {
        guard let name = value?.stringValue else { throw ManifestError(reason: "\"mode\": missing or not a string") }
        guard let mode = RuleBuildMode(rawValue: name) else {
            throw ManifestError(
                reason: "\"mode\": unknown mode \"\(name)\" (this radarblock knows "
                    + RuleBuildMode.allCases.map(\.rawValue).joined(separator: ", ") + ")")
        }
        return mode
    }

    static func inputs(_ value: JSONValue?) throws -> [ReleaseInput: InputRecord] {
        var inputs: [ReleaseInput: InputRecord] = [:]
        for (k, value) in value?.objectValue ?? JSONObject() where k != filterListsKey {
            guard let input = ReleaseInput(rawValue: k) else {
                throw ManifestError(reason: "\"inputs\": unknown input \"\(k)\"")
            }
            if let r = InputRecord(json: value) { inputs[input] = r }
        }
        return inputs
    }

    /// The key of the filter lists among the inputs.
    static let filterListsKey = "filterLists"

    static func filterLists(_ value: JSONValue?) throws -> [FilterListInput] {
        guard let value else { return [] }
        guard let items = value.arrayValue else {
            throw ManifestError(reason: "\"inputs\".\(filterListsKey): an array expected")
        }
        return try items.enumerated().map { try FilterListInput(json: $1, index: $0) }
    }

    static func verification(_ value: JSONValue?) throws -> ReleaseWebKitVerification? {
        guard let value else { return nil }
        guard let verification = ReleaseWebKitVerification(json: value) else {
            throw ManifestError(reason: "\"webkitVerification\": not a verification (webkitVersion, accepted)")
        }
        return verification
    }

    static func compileCost(_ value: JSONValue?) throws -> ReleaseCompileCost? {
        guard let value else { return nil }
        guard let cost = ReleaseCompileCost(json: value) else {
            throw ManifestError(reason: "\"webkitCompileCost\": not a compile cost (webkitVersion, lists)")
        }
        return cost
    }
}

public struct ManifestError: Error, CustomStringConvertible {
    public let reason: String
    public var description: String { reason }
}
