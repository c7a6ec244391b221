// manifest.json: what a release is made of and how to check it. Deterministic: the same inputs give the
// same manifest bytes (no wall-clock times unless --verify-webkit records WebKit's own verification or
// `build --previous` WebKit's compile cost).

import StrictJSON

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

    public init(_ fetched: FetchedInput) {
        self.init(
            source: fetched.source, etag: fetched.etag, lastModified: fetched.lastModified,
            sha256: fetched.sha256, bytes: fetched.bytes.count)
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

public struct OutputRecord: Sendable, Equatable {
    public var name: String
    public var sha256: String
    public var bytes: Int
}

public struct Manifest: Sendable, Equatable {
    public static let formatVersion = 1

    public var identifier: String
    public var toolVersion: String
    public var rbcFormatVersion: Int
    public var mode: String
    /// Input name ("tds", "config", "surrogates", "unprotected", "radar") -> record.
    public var inputs: [String: InputRecord]
    /// DuckDuckGo-style component identifiers (tdsEtag, tempListId, allowListId, unprotectedSitesHash).
    public var components: [String: String]
    public var outputs: [OutputRecord]
    /// Counts and deterministic compile figures (automata sizes, bytecode bytes, ...).
    public var counts: [ManifestCount: Double]
    /// The rule lists of this release in evaluation order (more than one when the rules were split).
    public var lists: [ManifestList]
    /// Present only with --verify-webkit.
    public var webKitVerification: JSONValue?
    /// Present only when `build --previous` measured WebKit's compile cost (ReleaseCompileCost): like
    /// webKitVerification, wall-clock figures, the non-deterministic part of a manifest.
    public var webKitCompileCost: JSONValue? = nil
    /// The engine profiles the release is for (`build --target`), the primary one first. Every entry of
    /// `lists` names its target; a loader of "the release's lists" takes those of one target (`lists(for:)`).
    public var targets: [String] = []

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
        o["mode"] = .string(mode)
        var inputsObject = JSONObject()
        for key in inputs.keys.sorted() { inputsObject[key] = inputs[key]!.jsonValue }
        o["inputs"] = .object(inputsObject)
        var comp = JSONObject()
        for key in components.keys.sorted() { comp[key] = .string(components[key]!) }
        o["components"] = .object(comp)
        var outs = JSONObject()
        for out in outputs.sorted(by: { $0.name < $1.name }) {
            outs[out.name] = ["sha256": .string(out.sha256), "bytes": .number(Double(out.bytes))]
        }
        o["outputs"] = .object(outs)
        var c = JSONObject()
        for key in counts.keys.sorted() { c[key.name] = .number(counts[key]!) }
        o["counts"] = .object(c)
        o["lists"] = .array(lists.map(\.jsonValue))
        if !targets.isEmpty { o["targets"] = .array(targets.map(JSONValue.string)) }
        if let webKitVerification { o["webkitVerification"] = webKitVerification }
        if let webKitCompileCost { o["webkitCompileCost"] = webKitCompileCost }
        return .object(o)
    }

    public func bytes() -> [UInt8] {
        var out = JSONWriter.bytes(jsonValue, options: [])
        out.append(0x0A)
        return out
    }

    public static func parse(_ bytes: [UInt8]) throws -> Manifest {
        let v = try JSONParser.parse(bytes)
        guard let o = v.objectValue, let id = o["identifier"]?.stringValue else {
            throw ManifestError(reason: "not a radarblock manifest (no identifier)")
        }
        var inputs: [String: InputRecord] = [:]
        for (k, value) in o["inputs"]?.objectValue ?? JSONObject() {
            if let r = InputRecord(json: value) { inputs[k] = r }
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
        let lists = try (o["lists"]?.arrayValue ?? []).enumerated().map { try ManifestList(json: $1, index: $0) }
        var manifest = Manifest(
            identifier: id, toolVersion: o["tool"]?["version"]?.stringValue ?? "",
            rbcFormatVersion: Int(o["rbcFormatVersion"]?.numberValue ?? 0), mode: o["mode"]?.stringValue ?? "",
            inputs: inputs, components: components, outputs: outputs, counts: counts,
            lists: lists, webKitVerification: o["webkitVerification"],
            targets: o["targets"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        manifest.webKitCompileCost = o["webkitCompileCost"]
        return manifest
    }
}

public struct ManifestError: Error, CustomStringConvertible {
    public let reason: String
    public var description: String { reason }
}
