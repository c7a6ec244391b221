// One entry of manifest.json's `lists`: the one encoder and the one decoder of a release's list contract,
// used by every writer (the main lists, click-to-load, cookie pop-up and attribution lists) and every reader
// (match, diff, install, the compile-cost gate, the attribution variant). The encoder writes the fields in one
// fixed order, so that the manifest's bytes are those of every earlier build.

import StrictJSON

/// The `role` of a manifest list entry: every list of a release has one. Entries written before roles existed
/// have none: click-to-load lists are known by their `ruleAction`, every other one is a part of the main list.
public enum ReleaseListRole: String, Sendable, CaseIterable {
    case main = "main"
    case clickToLoad = "click-to-load"
    case cookiePopups = "cpm"
    case adClickAttribution = "ad-click-attribution"
    /// A part of the filter lists' list (`build --filter-list`): entries name their `sources` and `layer`.
    case filterLists = "filter-lists"
}

/// An allowlist entry the attribution list covers: the app disables the list and adds the attributed variant
/// while an attribution for one of them is active.
public struct AttributionAllowlistEntry: Sendable, Equatable {
    public var blocklistEntry: String
    public var host: String

    public init(blocklistEntry: String, host: String) {
        self.blocklistEntry = blocklistEntry
        self.host = host
    }
}

public struct ManifestList: Sendable, Equatable {
    public var identifier: String
    /// The rule-list JSON file (the name of a file beside the manifest).
    public var rules: String?
    /// The compiled list (.rbc) beside it.
    public var rbc: String?
    /// Provenance by JSON index; the unsplit main list's is provenance.json, named by no entry.
    public var provenance: String?
    /// The attribution list's TDS (ReleaseFiles.attributionTDS).
    public var tds: String?
    public var ruleCount: Int?
    /// The tracker units of a main-list part (RuleListSplitter).
    public var trackerUnits: Int?
    /// sha256 of the `rules` file.
    public var sha256: String?
    /// The engine profile of a main-list part; lists that apply whatever the target have none.
    public var target: String?
    /// A click-to-load list's action and the entity it is for.
    public var ruleAction: String?
    public var entity: String?
    /// As written; nil in a manifest from before roles (see `kind`).
    public var role: ReleaseListRole?
    /// The cookie pop-up list's script-layer filters (ReleaseFiles.cookiePopupScript).
    public var script: String?
    /// The attribution list's allowlist entries.
    public var allowlist: [AttributionAllowlistEntry]?
    /// A filter lists' list: the lists it is made of (their names, as the manifest's `inputs.filterLists` and the
    /// provenance name them) and what of them it holds (`FilterListLayer`).
    public var sources: [String]?
    public var layer: String?

    public init(
        identifier: String, rules: String? = nil, rbc: String? = nil, provenance: String? = nil, tds: String? = nil,
        ruleCount: Int? = nil, trackerUnits: Int? = nil, sha256: String? = nil, target: String? = nil,
        ruleAction: String? = nil, entity: String? = nil, role: ReleaseListRole? = nil, script: String? = nil,
        allowlist: [AttributionAllowlistEntry]? = nil
    ) {
        self.identifier = identifier
        self.rules = rules
        self.rbc = rbc
        self.provenance = provenance
        self.tds = tds
        self.ruleCount = ruleCount
        self.trackerUnits = trackerUnits
        self.sha256 = sha256
        self.target = target
        self.ruleAction = ruleAction
        self.entity = entity
        self.role = role
        self.script = script
        self.allowlist = allowlist
    }

    /// The entry's role, also for an entry written before roles existed.
    public var kind: ReleaseListRole { role ?? (ruleAction != nil ? .clickToLoad : .main) }

    public var jsonValue: JSONValue {
        var o = JSONObject()
        o["identifier"] = .string(identifier)
        if let rules { o["rules"] = .string(rules) }
        if let rbc { o["rbc"] = .string(rbc) }
        if let provenance { o["provenance"] = .string(provenance) }
        if let tds { o["tds"] = .string(tds) }
        if let ruleCount { o["ruleCount"] = .number(Double(ruleCount)) }
        if let trackerUnits { o["trackerUnits"] = .number(Double(trackerUnits)) }
        if let sha256 { o["sha256"] = .string(sha256) }
        if let target { o["target"] = .string(target) }
        if let ruleAction { o["ruleAction"] = .string(ruleAction) }
        if let entity { o["entity"] = .string(entity) }
        if let role { o["role"] = .string(role.rawValue) }
        if let script { o["script"] = .string(script) }
        if let allowlist {
            o["allowlist"] = .array(
                allowlist.map { ["blocklistEntry": .string($0.blocklistEntry), "host": .string($0.host)] })
        }
        if let sources { o["sources"] = .array(sources.map(JSONValue.string)) }
        if let layer { o["layer"] = .string(layer) }
        return .object(o)
    }

    /// Decodes `lists[index]`; an error names the field (`lists[2].identifier: ...`).
    public init(json: JSONValue, index: Int) throws {
        let at = "lists[\(index)]"
        guard let o = json.objectValue else { throw ManifestError(reason: "\(at): an object expected") }
        let fields = ManifestFields(object: o, at: at)
        guard let identifier = try fields.string("identifier") else {
            throw ManifestError(reason: "\(at).identifier: missing (every list has an identifier)")
        }
        self.init(
            identifier: identifier, rules: try fields.string("rules"), rbc: try fields.string("rbc"),
            provenance: try fields.string("provenance"), tds: try fields.string("tds"),
            ruleCount: try fields.integer("ruleCount"), trackerUnits: try fields.integer("trackerUnits"),
            sha256: try fields.string("sha256"), target: try fields.string("target"),
            ruleAction: try fields.string("ruleAction"), entity: try fields.string("entity"),
            role: try fields.role(), script: try fields.string("script"), allowlist: try fields.allowlist())
        self.sources = try fields.strings("sources")
        self.layer = try fields.string("layer")
    }
}

/// Typed reads of one entry's fields: absent is nil, present with the wrong type is an error naming it.
private struct ManifestFields {
    var object: JSONObject
    var at: String

    func string(_ key: String) throws -> String? {
        guard let v = object[key] else { return nil }
        guard let s = v.stringValue else { throw ManifestError(reason: "\(at).\(key): a string expected") }
        return s
    }

    func strings(_ key: String) throws -> [String]? {
        guard let v = object[key] else { return nil }
        guard let items = v.arrayValue else { throw ManifestError(reason: "\(at).\(key): an array expected") }
        return try items.enumerated().map { j, item in
            guard let s = item.stringValue else { throw ManifestError(reason: "\(at).\(key)[\(j)]: a string expected") }
            return s
        }
    }

    func integer(_ key: String) throws -> Int? {
        guard let v = object[key] else { return nil }
        guard let n = v.numberValue, n >= 0, n == n.rounded(), n < 1e15 else {
            throw ManifestError(reason: "\(at).\(key): a non-negative integer expected")
        }
        return Int(n)
    }

    func role() throws -> ReleaseListRole? {
        guard let name = try string("role") else { return nil }
        guard let role = ReleaseListRole(rawValue: name) else {
            let known = ReleaseListRole.allCases.map(\.rawValue).joined(separator: ", ")
            throw ManifestError(reason: "\(at).role: unknown role \"\(name)\" (known: \(known))")
        }
        return role
    }

    func allowlist() throws -> [AttributionAllowlistEntry]? {
        guard let v = object["allowlist"] else { return nil }
        guard let items = v.arrayValue else { throw ManifestError(reason: "\(at).allowlist: an array expected") }
        return try items.enumerated().map { j, item in
            let entry = ManifestFields(object: item.objectValue ?? JSONObject(), at: "\(at).allowlist[\(j)]")
            guard let blocklistEntry = try entry.string("blocklistEntry") else {
                throw ManifestError(reason: "\(entry.at).blocklistEntry: missing")
            }
            guard let host = try entry.string("host") else { throw ManifestError(reason: "\(entry.at).host: missing") }
            return AttributionAllowlistEntry(blocklistEntry: blocklistEntry, host: host)
        }
    }
}

extension ManifestList {
    /// The attribution entry of a manifest, or nil when the release has none.
    public static func adClickAttribution(of manifest: Manifest) -> ManifestList? {
        manifest.lists.first { $0.role == .adClickAttribution }
    }
}
