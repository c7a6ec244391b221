// Where an output rule comes from: the builder's record of it, written one JSON object per rule by `jsonValue` and
// read back by `init(json:)` (ProvenanceFile.swift), the one encoder and the one decoder of the schema.

import StrictJSON

/// Where an output rule comes from. Serialised (one JSON object per rule) by `jsonValue`.
public struct RuleProvenance: Sendable, Hashable, CustomStringConvertible {
    /// Each source is one kind of input record; a new input (a filter list's line, say) is a new case here, with
    /// the members that locate it.
    public enum Source: String, Sendable, CaseIterable {
        /// A TDS tracker (its default, a rule, its entity, ...).
        case tds
        /// The privacy config's temp list (unprotectedTemporary + contentBlocking exceptions).
        case tempList = "temp-list"
        /// The user's unprotected sites.
        case userUnprotected = "user-unprotected"
        /// An entry of the privacy config's tracker allowlist.
        case allowlist
        /// The builder's own rule that keeps top-level navigations and popups unblocked.
        case topLevel = "top-level"
        /// An entry of the privacy config's request blocklist (tracker = its domain key, index = its index).
        case requestBlocklist
        /// A feature switched off by its `state`: the list's only rule, blocking nothing.
        case featureState = "feature-state"
        /// A click-to-load list's exemptions: the entity's own sites (role "first-party") and
        /// `clickToLoad.exceptions` (role "exception").
        case clickToLoad = "click-to-load"
        /// The attributed variant's first rule of a tracker (its conversion host is `allowlistRule`).
        case adClickAttribution = "ad-click-attribution"
        /// The cookie pop-up list (`cpm.filterList`): its hiding rules (role "hide") and the config's off sites
        /// (role "off-sites").
        case cookiePopups = "cpm"
        /// A filter of an Adblock Plus filter list (`list`, `filterLines`, `filter`; role block/exception/important).
        case filterList = "filter-list"
    }

    /// What part of a tracker a TDS rule was built from.
    public enum TrackerPart: Sendable, Hashable {
        /// The tracker's `default` (domain-wide rule).
        case `default`
        /// A rule of the tracker, by its index in the tracker's `rules` array.
        case rule(Int)
        /// The same-entity (first-party owner) exemption.
        case entity
        /// The "never block a popup" exemption (ddg mode).
        case popup

        public var jsonValue: JSONValue {
            switch self {
            case .default: return "default"
            case .rule(let i): return .number(Double(i))
            case .entity: return "entity"
            case .popup: return "popup"
            }
        }
    }

    public var source: Source
    /// The TDS tracker domain (source tds), or the allowlist's tracker key (source allowlist).
    public var tracker: String?
    public var part: TrackerPart?
    /// The role of the rule within its TDS rule or config entry (faithful mode).
    public var role: Role?
    /// Which url-filter form a TDS rule or allowlist entry became (FilterForm.swift).
    public var form: RecordedFilterForm?
    /// For CNAME copies: the alias (cloaking) host.
    public var cnameAlias: String?
    /// For an exemption shared by an entity's trackers: the entity's name.
    public var entity: String?
    /// For allowlist rules: the index within the tracker's allowlist rules, and the rule string.
    public var allowlistIndex: Int?
    public var allowlistRule: String?
    /// For cookie pop-up rules: the line numbers of `cpm.filterList` the rule comes from.
    public var filterLines: [Int]?
    /// For filter-list rules: the list's name and the filter's text.
    public var list: String?
    public var filter: String?

    public init(
        source: Source, tracker: String? = nil, part: TrackerPart? = nil, role: Role? = nil,
        cnameAlias: String? = nil, allowlistIndex: Int? = nil, allowlistRule: String? = nil, entity: String? = nil,
        filterLines: [Int]? = nil, list: String? = nil, filter: String? = nil
    ) {
        self.source = source
        self.tracker = tracker
        self.part = part
        self.role = role
        self.cnameAlias = cnameAlias
        self.allowlistIndex = allowlistIndex
        self.allowlistRule = allowlistRule
        self.entity = entity
        self.filterLines = filterLines
        self.list = list
        self.filter = filter
    }

    /// `{"source":"tds","tracker":"a.com","rule":3,"role":"exception"}`; absent members are omitted.
    public var jsonValue: JSONValue {
        var o = JSONObject()
        o[.source] = .string(source.rawValue)
        if let tracker { o[.tracker] = .string(tracker) }
        if let part { o[.rule] = part.jsonValue }
        if let roleText { o[.role] = .string(roleText) }
        if let cnameAlias { o[.cname] = .string(cnameAlias) }
        if let entity { o[.entity] = .string(entity) }
        if let allowlistIndex { o[.index] = .number(Double(allowlistIndex)) }
        if let allowlistRule { o[.allowlistRule] = .string(allowlistRule) }
        if let filterLines { o[.lines] = .array(filterLines.map { .number(Double($0)) }) }
        if let list { o[.list] = .string(list) }
        if let filter { o[.filter] = .string(filter) }
        if let requestBlocklistName { o[.name] = .string(requestBlocklistName) }
        return .object(o)
    }

    /// The members of a provenance object, in the order `jsonValue` writes them.
    enum Field: String, CaseIterable {
        case source, tracker, rule, role, cname, entity, index, allowlistRule, lines, list, filter, name
    }

    /// A request blocklist entry's name, `requestBlocklist/DOMAIN/INDEX` (written, not read: it follows from the
    /// tracker and index).
    public var requestBlocklistName: String? {
        guard source == .requestBlocklist, let tracker, let allowlistIndex else { return nil }
        return "requestBlocklist/\(tracker)/\(allowlistIndex)"
    }

    public var description: String { JSONWriter.string(jsonValue) }

    /// The serialised role: `role`, then the form's name ("block host", "exception in-url"; "host" for an
    /// allowlist entry, which has no role of its own).
    public var roleText: String? {
        guard let form else { return role?.text }
        return role.map { $0.text + " " + form.kind.rawValue } ?? form.kind.rawValue
    }

    /// This provenance for a rule of the given url-filter form.
    public func with(_ form: FilterForm) -> RuleProvenance {
        var p = self
        p.form = RecordedFilterForm(form)
        return p
    }

    /// The exemption an entity's trackers share (SharedEntityExemption.swift): a TDS rule of no one tracker, meant
    /// to match every URL on the entity's sites.
    public var isSharedEntityExemption: Bool { source == .tds && part == .entity && tracker == nil && entity != nil }
}

extension JSONObject {
    subscript(field: RuleProvenance.Field) -> JSONValue? {
        get { self[field.rawValue] }
        set { self[field.rawValue] = newValue }
    }
}
