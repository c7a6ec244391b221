// `match`'s answer as a person reads it: what the page gets (blocked, blocked and replaced by a surrogate,
// allowed, hidden) and the rule that decided it, named by its TDS tracker, entity and rule pattern, or by the
// config feature and entry it comes from. The decision is the one `diff` makes (RuleDiff's DecisionSide).

import RuleCompiler
import RuleDiff
import RuleEngine
import StrictJSON
import TrackerData

enum MatchAnswer {
    /// The lists as one decision side, with the surrogates of the releases they come from.
    static func side(_ lists: [MatchCommand.NamedList]) -> DecisionSide {
        var surrogates: [String: String] = [:]
        var seen = Set<String>()
        for list in lists {
            guard let release = list.release, seen.insert(release).inserted else { continue }
            surrogates.merge(list.surrogates) { first, _ in first }
        }
        return DecisionSide(
            lists: lists.map(\.list), provenance: lists.map { $0.provenance ?? [] }, surrogates: surrogates)
    }

    /// "page gets  ..." and "decided by  ..." lines for one load (nothing for a URL WebKit never matches).
    static func page(_ request: MatchRequest, side: DecisionSide, lists: [MatchCommand.NamedList]) throws -> String {
        let load = try side.engine.resolve(request)
        guard load.url != nil, !load.isData else { return "" }
        var result = MatchResult()
        side.engine.match(load, into: &result, deciding: true)
        let (outcome, surrogate) = side.decision(result)
        var s: String
        switch outcome {
        case .surrogate:
            s =
                "page gets  surrogate \(surrogate!): the load is blocked and surrogates.js runs \(surrogate!) in its"
                + " place\n"
        case .blocked:
            s =
                "page gets  blocked"
                + (side.surrogates.isEmpty
                    ? " (whether surrogates.js replaces it needs the release's TDS: give the release directory)" : "")
                + "\n"
        case .allowed:
            let hides = result.actions.contains { $0.kind == .cssDisplayNone }
            s =
                hides
                ? "page gets  hidden: the load is allowed, and elements are hidden (css-display-none)\n"
                : "page gets  allowed\n"
        }
        guard let d = result.decidedBy else { return s + "decided by no rule\n" }
        let list = lists[d.list]
        let source = Int(list.list.compiled.rules[d.rule].sourceIndex)
        s += "decided by \(list.label) rule \(source): "
        guard let provenance = list.provenance, source < provenance.count else {
            return s
                + "no provenance (a bare rule list: give the release directory, or --provenance FILE, to name its TDS"
                + " tracker or config entry)\n"
        }
        return s + describe(provenance[source], tds: list.tds) + "\n"
    }

    /// A rule's provenance in words: its TDS tracker, entity and rule pattern, or its config feature and entry.
    static func describe(_ p: JSONValue, tds: TrackerDataSet?) -> String {
        let source = p["source"]?.stringValue ?? "unknown"
        let role = p["role"]?.stringValue.map { " (\($0))" } ?? ""
        guard source == "tds", let tracker = p["tracker"]?.stringValue else {
            let entry = JSONWriter.string(p)
            switch source {
            case "temp-list":
                return
                    "config: the temporarily unprotected sites (unprotectedTemporary, contentBlocking"
                    + " exceptions)\(role) \(entry)"
            case "user-unprotected": return "the user-unprotected sites (--unprotected)\(role) \(entry)"
            case "allowlist":
                return
                    "config feature trackerAllowlist, entry \(p["allowlistRule"]?.stringValue ?? "?") of tracker"
                    + " \(p["tracker"]?.stringValue ?? "?") \(entry)"
            case "requestBlocklist":
                return "config feature requestBlocklist, entry \(p["name"]?.stringValue ?? "?") \(entry)"
            case "feature-state": return "config: a feature's state\(role) \(entry)"
            default: return "\(source)\(role) \(entry)"
            }
        }
        let entity = tds?.trackers[tracker]?.owner?.name ?? tds?.entityName(ofHost: tracker)
        var s = "TDS tracker \(tracker) (entity \(entity ?? "unknown"))"
        switch p["rule"] {
        case .number(let n)?:
            let index = Int(n)
            let pattern = tds?.trackers[tracker].flatMap { index < $0.rules.count ? $0.rules[index].rule : nil }
            s += ", TDS rule \(index)" + (pattern.map { " " + shown($0) } ?? "")
        case .string(let kind)?: s += ", its \(kind) rule"
        default: break
        }
        if let alias = p["cname"]?.stringValue { s += ", through CNAME alias \(alias)" }
        return s + role
    }

    /// A pattern as written (between backticks), unless a control character would break the line.
    static func shown(_ pattern: String) -> String {
        pattern.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || $0 == "`" }
            ? quoted(pattern) : "`\(pattern)`"
    }
}
