import StrictJSON

/// Something in the input that the conversion could not express exactly, changed, or dropped.
public struct ConversionIssue: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// A regex WebKit's url-filter subset cannot express: the rule (or one alternative of it) is left out.
        case unexpressibleRegex = "unexpressible-regex"
        /// A regex rewritten into WebKit's subset with the same meaning (e.g. `a{2}` -> `aa`, `\d` -> `[0-9]`).
        case rewrittenRegex = "rewritten-regex"
        /// A resource type WebKit cannot distinguish exactly (mapped to the nearest WebKit type, or dropped).
        case resourceType = "resource-type"
        /// A rule, or part of one, that can never apply (and so is not emitted).
        case neverApplies = "never-applies"
        /// An input the reference algorithm ignores (e.g. an action TrackerRadarKit does not know).
        case ignoredInput = "ignored-input"
        /// ddg mode: what TrackerRadarKit emits here would be rejected by WebKit or changes the meaning.
        case ddgDeviation = "ddg-deviation"
        /// A rule the target engine (`--target`) cannot express: left out for that target.
        case unexpressibleOnTarget = "unexpressible-on-target"
        /// The output as a whole (empty list, too many rules).
        case output
        /// A note about the configuration.
        case configNote = "config"
    }

    public enum Location: Sendable, Hashable, CustomStringConvertible {
        /// A place in the TDS; for rules, the tracker and the index in its rules array.
        case tds(JSONPath)
        /// A place in the privacy configuration.
        case config(JSONPath)
        /// The user-unprotected sites.
        case unprotected
        /// The output rule list.
        case output

        public var description: String {
            switch self {
            case .tds(let p): return "tds " + p.description
            case .config(let p): return "config " + p.description
            case .unprotected: return "unprotected sites"
            case .output: return "output"
            }
        }
    }

    public var kind: Kind
    public var location: Location
    public var message: String
    /// For issues about a TDS rule: its tracker and index (also in `location`).
    public var tracker: String?
    public var ruleIndex: Int?

    public init(kind: Kind, location: Location, message: String, tracker: String? = nil, ruleIndex: Int? = nil) {
        self.kind = kind
        self.location = location
        self.message = message
        self.tracker = tracker
        self.ruleIndex = ruleIndex
    }

    static func tdsRule(_ kind: Kind, tracker: String, index: Int, field: String? = nil, _ message: String)
        -> ConversionIssue
    {
        var path = JSONPath.root / "trackers" / tracker / "rules" / index
        // "exceptions.types" -> .exceptions.types
        for component in (field ?? "").split(separator: ".") { path = path / String(component) }
        return ConversionIssue(kind: kind, location: .tds(path), message: message, tracker: tracker, ruleIndex: index)
    }

    static func tracker(_ kind: Kind, _ tracker: String, field: String? = nil, _ message: String) -> ConversionIssue {
        var path = JSONPath.root / "trackers" / tracker
        if let field { path = path / field }
        return ConversionIssue(kind: kind, location: .tds(path), message: message, tracker: tracker)
    }

    static func allowlist(_ kind: Kind, tracker: String, index: Int, _ message: String) -> ConversionIssue {
        let path =
            JSONPath.root / "features" / "trackerAllowlist" / "settings" / "allowlistedTrackers" / tracker / "rules"
            / index
        return ConversionIssue(
            kind: kind, location: .config(path), message: message, tracker: tracker, ruleIndex: index)
    }

    /// `tds $.trackers["a.com"].rules[3].rule: ...` (kind in brackets).
    public var description: String { "\(location.description): \(message) [\(kind.rawValue)]" }
}
