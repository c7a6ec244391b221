// Privacy-config features that decide blocking besides the tracker allowlist: the request blocklist
// (`features.requestBlocklist`) and click-to-load (`features.clickToLoad`). The reference tests in
// privacy-reference-tests/request-blocklist and click-to-load are their spec.

import Domains
import StrictJSON

/// `features.requestBlocklist`: requests blocked everywhere or on some sites, even first party.
public struct RequestBlocklist: Sendable, Hashable {
    /// `state == "enabled"`.
    public var enabled: Bool
    /// Sites (each with its subdomains) where the feature is off: `features.requestBlocklist.exceptions[].domain`.
    public var exceptions: [String]
    /// Valid rules, keys in file order, rules in file order within a key.
    public var rules: [RequestBlockRule]

    public init(enabled: Bool = false, exceptions: [String] = [], rules: [RequestBlockRule] = []) {
        self.enabled = enabled
        self.exceptions = exceptions
        self.rules = rules
    }
}

/// One `blockedRequests[domain].rules[index]` entry. `rule` is `host[:port][/path]` where `*` is the only
/// wildcard, the end is open (a prefix), the host is case-insensitive (and covers its subdomains) and the path
/// (with the query) is case-sensitive.
public struct RequestBlockRule: Sendable, Hashable {
    /// The `blockedRequests` key (a registrable domain) and the index in its `rules`: the rule's provenance.
    public var domain: String
    public var index: Int
    /// Lowercased host of the rule.
    public var host: String
    /// The port written in the rule (never a default port), nil when none.
    public var port: String?
    /// Everything after the host and port (starts with "/"; empty when the rule names only a host).
    public var path: String
    public var sites: AllowlistEntry.Sites

    public init(domain: String, index: Int, host: String, port: String?, path: String, sites: AllowlistEntry.Sites) {
        self.domain = domain
        self.index = index
        self.host = host
        self.port = port
        self.path = path
        self.sites = sites
    }

    /// `requestBlocklist/<domain>/<index>`.
    public var provenanceName: String { "requestBlocklist/\(domain)/\(index)" }

    /// The rule's url-filter (matched case-sensitively): the host and its subdomains, the port as written, and the
    /// path with `*` as the only wildcard; a rule naming only a host matches its whole site (WebKit's URLs always
    /// have a path).
    public var urlFilter: String {
        var f = TDSConventions.subdomainPrefix + TDSConventions.regexLiteral(host)
        f += port.map { ":" + $0 } ?? ""
        if path.isEmpty { return f + "/" }
        for ch in path {
            if ch == "*" { f += ".*" } else { f += TDSConventions.regexLiteral(String(ch)) }
        }
        return f
    }
}

/// `features.clickToLoad`: per entity, rule actions whose blocks the user can lift per page.
public struct ClickToLoad: Sendable, Hashable {
    public var enabled: Bool
    /// Sites (with subdomains) where click-to-load blocks nothing: `features.clickToLoad.exceptions[].domain`.
    public var exceptions: [String]
    /// `settings` in file order.
    public var entities: [ClickToLoadEntity]

    public init(enabled: Bool = false, exceptions: [String] = [], entities: [ClickToLoadEntity] = []) {
        self.enabled = enabled
        self.exceptions = exceptions
        self.entities = entities
    }

    /// The supported rule actions: feature enabled, entity enabled, action listed there; first listing wins,
    /// in file order.
    public var supportedRuleActions: [(ruleAction: String, entity: String)] {
        guard enabled else { return [] }
        var seen = Set<String>()
        var out: [(String, String)] = []
        for e in entities where e.enabled {
            for a in e.ruleActions where seen.insert(a).inserted { out.append((a, e.name)) }
        }
        return out
    }
}

public struct ClickToLoadEntity: Sendable, Hashable {
    /// The TDS entity name (settings key).
    public var name: String
    public var enabled: Bool
    public var ruleActions: [String]

    public init(name: String, enabled: Bool, ruleActions: [String]) {
        self.name = name
        self.enabled = enabled
        self.ruleActions = ruleActions
    }
}

extension PrivacyConfig {
    static let requestBlockRuleKeys: Set<String> = ["rule", "domains", "reason"]

    static func decodeRequestBlocklist(
        _ feature: JSONObject, at path: JSONPath, log: inout IssueLog,
        psl: PublicSuffixList = .shared
    ) throws -> RequestBlocklist {
        var out = RequestBlocklist()
        out.enabled = try log.optional(feature, "state", at: path, expected: "a string", Typed.string) == "enabled"
        out.exceptions = try decodeDomainList(feature, "exceptions", at: path, log: &log)
        guard let sv = feature.member("settings") else { return out }
        guard case .object(let settings) = sv else {
            try log.report(path / "settings", "expected an object, found \(sv.aTypeName); request blocklist ignored")
            return out
        }
        guard let bv = settings.member("blockedRequests") else { return out }
        let bpath = path / "settings" / "blockedRequests"
        guard case .object(let blocked) = bv else {
            try log.report(bpath, "expected an object, found \(bv.aTypeName); request blocklist ignored")
            return out
        }
        for key in blocked.keys {
            let kpath = bpath / key
            guard let domain = try log.domain(key, at: kpath, consequence: "its rules are skipped") else { continue }
            if psl.registrableDomain(domain) != domain {
                try log.report(
                    kpath,
                    "a blockedRequests key must be a registrable domain (eTLD+1), not a subdomain or a public suffix; "
                        + "its rules are skipped"
                )
                continue
            }
            let kv = blocked[key]!
            guard case .object(let entry) = kv, let rv = entry.member("rules"), case .array(let rules) = rv else {
                try log.report(kpath, "expected an object with a \"rules\" array; its rules are skipped")
                continue
            }
            for (i, r) in rules.enumerated() {
                if let rule = try decodeRequestBlockRule(
                    r, domain: domain, index: i, at: kpath / "rules" / i, log: &log)
                {
                    out.rules.append(rule)
                }
            }
        }
        return out
    }

    /// One rule, or nil (reported) when it is invalid. Invalid entries are skipped, never repaired.
    static func decodeRequestBlockRule(
        _ value: JSONValue, domain: String, index: Int, at path: JSONPath,
        log: inout IssueLog
    ) throws -> RequestBlockRule? {
        guard case .object(let o) = value else {
            try log.report(path, "expected an object, found \(value.aTypeName); rule skipped")
            return nil
        }
        if let unknown = o.keys.first(where: { !requestBlockRuleKeys.contains($0) }) {
            try log.report(
                path / unknown, "unknown key (a rule has only \"rule\", \"domains\" and \"reason\"); rule skipped")
            return nil
        }
        guard let rv = o.member("rule"), case .string(let text) = rv, !text.isEmpty else {
            try log.report(
                path / "rule",
                o.member("rule") == nil ? "missing \"rule\"; rule skipped" : "expected a non-empty string; rule skipped"
            )
            return nil
        }
        guard let dv = o.member("domains") else {
            try log.report(path / "domains", "missing \"domains\" (\"<all>\" or a list of sites); rule skipped")
            return nil
        }
        guard let rawSites = Typed.stringArray(dv), !rawSites.isEmpty else {
            try log.report(path / "domains", "expected a non-empty array of strings; rule skipped")
            return nil
        }
        if let reason = o.member("reason"), reason.stringValue == nil {
            try log.report(path / "reason", "expected a string, found \(reason.aTypeName); rule skipped")
            return nil
        }
        let parsed: RequestBlockPattern
        switch RequestBlockPattern.parse(text) {
        case .failure(let why):
            try log.report(path / "rule", "\(why.message); rule skipped")
            return nil
        case .success(let p): parsed = p
        }
        guard Host.isSameOrSubdomain(parsed.host, of: domain) else {
            try log.report(path / "rule", "the rule's host \(parsed.host) is not under \(domain); rule skipped")
            return nil
        }
        var sites: AllowlistEntry.Sites = .all
        if !rawSites.contains("<all>") {
            var list: [String] = []
            for (i, s) in rawSites.enumerated() {
                guard let d = try log.domain(s, at: path / "domains" / i, consequence: "rule skipped") else {
                    return nil
                }
                list.append(d)
            }
            sites = .domains(list)
        }
        return RequestBlockRule(
            domain: domain, index: index, host: parsed.host, port: parsed.port, path: parsed.path, sites: sites)
    }

    static func decodeClickToLoad(_ feature: JSONObject, at path: JSONPath, log: inout IssueLog) throws -> ClickToLoad {
        var out = ClickToLoad()
        out.enabled = try log.optional(feature, "state", at: path, expected: "a string", Typed.string) == "enabled"
        out.exceptions = try decodeDomainList(feature, "exceptions", at: path, log: &log)
        guard let sv = feature.member("settings") else { return out }
        guard case .object(let settings) = sv else {
            try log.report(path / "settings", "expected an object, found \(sv.aTypeName); click-to-load ignored")
            return out
        }
        for name in settings.keys {
            let epath = path / "settings" / name
            guard case .object(let e) = settings[name]! else {
                try log.report(epath, "expected an object, found \(settings[name]!.aTypeName); entity ignored")
                continue
            }
            let state = try log.optional(e, "state", at: epath, expected: "a string", Typed.string)
            var actions: [String] = []
            if let av = e.member("ruleActions") {
                if let a = Typed.stringArray(av) {
                    actions = a
                } else {
                    try log.report(epath / "ruleActions", "expected an array of strings; entity ignored")
                    continue
                }
            }
            for (i, a) in actions.enumerated() where !RequestBlockPattern.isSafeName(a) {
                try log.report(
                    epath / "ruleActions" / i,
                    "a rule action is a name of ASCII letters, digits and \"-\" (it names a file and an identifier "
                        + "component); entity ignored"
                )
                actions = []
                break
            }
            out.entities.append(ClickToLoadEntity(name: name, enabled: state == "enabled", ruleActions: actions))
        }
        return out
    }
}

/// The `rule` string of a request-blocklist entry, split and checked.
struct RequestBlockPattern {
    struct Problem: Error { var message: String }

    var host: String
    var port: String?
    var path: String

    /// Characters of regex or adblock syntax: the rule language has only `*`, so a rule using them means
    /// something the apps would not do with it.
    static let syntaxCharacters: Set<Character> = ["\\", "(", ")", "[", "]", "{", "}", "|", "^", "$"]

    static func parse(_ text: String) -> Result<RequestBlockPattern, Problem> {
        if text.hasPrefix("||") || text.hasPrefix("@@") || text.hasPrefix("|") {
            return .failure(
                Problem(
                    message: "adblock filter syntax (\(text.prefix(2))...) is not the request-blocklist rule language"))
        }
        if let c = text.first(where: { syntaxCharacters.contains($0) }) {
            return .failure(
                Problem(
                    message: "\"\(c)\" is regex or adblock syntax; a rule is host/path with \"*\" as its only wildcard")
            )
        }
        guard text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            return .failure(
                Problem(
                    message:
                        "only printable ASCII without spaces is allowed (write hosts in punycode and paths "
                        + "percent-encoded)"
                ))
        }
        if text.contains("://") { return .failure(Problem(message: "a rule starts with the host, without a scheme")) }
        let slash = text.firstIndex(of: "/") ?? text.endIndex
        let authority = text[..<slash]
        let path = String(text[slash...])
        var host = Substring(authority)
        var port: String? = nil
        if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            let p = authority[authority.index(after: colon)...]
            guard !p.isEmpty, p.allSatisfy(\.isASCIIDigit), let n = Int(p), n > 0, n < 65536 else {
                return .failure(Problem(message: "the port \"\(p)\" is not a number from 1 to 65535"))
            }
            if n == 443 || n == 80 {
                return .failure(
                    Problem(
                        message:
                            "port \(n) is a default port, which never appears in a request URL; write the rule without "
                            + "it"
                    ))
            }
            port = String(n)
        }
        let lower = host.lowercased()
        guard !lower.isEmpty, !lower.contains("*"),
            lower.allSatisfy({ $0.isASCIIDigit || ($0 >= "a" && $0 <= "z") || $0 == "-" || $0 == "." || $0 == "_" }),
            !lower.hasPrefix("."), !lower.hasSuffix(".")
        else {
            return .failure(Problem(message: "\"\(host)\" is not a host name (no wildcard is allowed in the host)"))
        }
        return .success(RequestBlockPattern(host: lower, port: port, path: path))
    }

    static func isSafeName(_ s: String) -> Bool {
        !s.isEmpty && s.allSatisfy { $0.isASCIIDigit || ($0.isASCII && $0.isLetter) || $0 == "-" }
    }
}

extension Character {
    var isASCIIDigit: Bool { self >= "0" && self <= "9" }
}
