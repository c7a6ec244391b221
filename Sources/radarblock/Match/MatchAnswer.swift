// `match`'s answer as a person reads it: what the page gets (blocked, blocked and replaced by a surrogate,
// allowed, hidden), the engine's `PageOutcome`, and the rule that decided it, named by its TDS tracker, entity and
// rule pattern, or by the config feature and entry it comes from; and the one line per request of `--requests
// --format text`. The decision is the one `diff` makes (RuleEngine's DecisionSide).

import Provenance
import Release
import RuleEngine
import StrictJSON
import TrackerData

enum MatchAnswer {
    /// The lists as one decision side, with the surrogates of the releases they come from.
    static func side(_ lists: [MatchCommand.NamedList]) -> DecisionSide {
        var surrogates: [TDSRuleID: String] = [:]
        var seen = Set<String>()
        for list in lists {
            guard let release = list.release, seen.insert(release).inserted else { continue }
            surrogates.merge(list.surrogates) { first, _ in first }
        }
        return DecisionSide(
            lists: lists.map(\.list), provenance: lists.map { $0.provenance ?? [] }, surrogates: surrogates)
    }

    /// Why a blocked load has no surrogate answer: a release built without `--surrogates` has none to give; a bare
    /// list cannot say.
    static func noSurrogatesNote(_ lists: [MatchCommand.NamedList]) -> String {
        lists.contains { $0.release != nil }
            ? " (the release has no \(ReleaseFiles.surrogatesJS): it was built without --surrogates)"
            : " (whether \(ReleaseFiles.surrogatesJS) replaces it needs the release's TDS: give the release directory)"
    }

    /// "page gets  ..." and "decided by  ..." lines for one load (nothing for a URL WebKit never matches).
    static func page(_ request: MatchRequest, side: DecisionSide, lists: [MatchCommand.NamedList]) throws -> String {
        let load = try side.engine.resolve(request)
        guard load.url != nil, !load.isData else { return "" }
        var result = MatchResult()
        side.engine.match(load, into: &result, deciding: .all)
        let outcome = side.outcome(result, actions: true)
        var s: String
        switch outcome.kind {
        case .surrogate:
            let surrogate = outcome.surrogate!
            s =
                "page gets  surrogate \(surrogate): the load is blocked and \(ReleaseFiles.surrogatesJS) runs "
                + "\(surrogate) in its place\n"
        case .blocked:
            s =
                "page gets  blocked"
                + (side.surrogates.isEmpty ? noSurrogatesNote(lists) : "")
                + "\n"
        case .allowed:
            s =
                outcome.isHidden
                ? "page gets  hidden: the load is allowed, and elements are hidden (css-display-none)\n"
                : "page gets  allowed\n"
        }
        guard let d = outcome.decidedBy else { return s + "decided by no rule\n" }
        let source = Int(side.engine.lists[d.list].compiled.rules[d.rule].sourceIndex)
        s += "decided by \(lists[d.list].label) rule \(source): "
        guard let provenance = side.provenance(of: d) else {
            return s
                + "no provenance (a bare rule list: give the release directory, or --provenance FILE, to name its TDS"
                + " tracker or config entry)\n"
        }
        return s + describe(provenance, tds: lists[d.list].tds) + "\n"
    }

    /// A rule's provenance in words: its TDS tracker, entity and rule pattern, or its config feature and entry.
    static func describe(_ p: RuleProvenance, tds: TrackerDataSet?) -> String {
        let role = p.roleText.map { " (\($0))" } ?? ""
        guard p.source == .tds, let tracker = p.tracker else {
            let entry = JSONWriter.string(p.jsonValue)
            switch p.source {
            case .tempList:
                return
                    "config: the temporarily unprotected sites (unprotectedTemporary, contentBlocking"
                    + " exceptions)\(role) \(entry)"
            case .userUnprotected: return "the user-unprotected sites (--unprotected)\(role) \(entry)"
            case .allowlist:
                return
                    "config feature trackerAllowlist, entry \(p.allowlistRule ?? "?") of tracker"
                    + " \(p.tracker ?? "?") \(entry)"
            case .requestBlocklist:
                return "config feature requestBlocklist, entry \(p.requestBlocklistName ?? "?") \(entry)"
            case .featureState: return "config: a feature's state\(role) \(entry)"
            default: return "\(p.source.rawValue)\(role) \(entry)"
            }
        }
        let entity = tds?.trackers[tracker]?.owner?.name ?? tds?.entityName(ofHost: tracker)
        var s = "TDS tracker \(tracker) (entity \(entity ?? "unknown"))"
        switch p.part {
        case .rule(let index)?:
            let pattern = tds?.trackers[tracker].flatMap { index < $0.rules.count ? $0.rules[index].rule : nil }
            s += ", TDS rule \(index)" + (pattern.map { " " + shown($0) } ?? "")
        case .default?: s += ", its default rule"
        case .entity?: s += ", its entity rule"
        case .popup?: s += ", its popup rule"
        case nil: break
        }
        if let alias = p.cnameAlias { s += ", through CNAME alias \(alias)" }
        return s + role
    }

    /// A pattern as written (between backticks), unless a control character would break the line.
    static func shown(_ pattern: String) -> String {
        pattern.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || $0 == "`" }
            ? quoted(pattern) : "`\(pattern)`"
    }
}

/// `match --requests --format text`: one line per request,
/// `blocked  script  https://t.example/a.js  on https://site.example/  by rules.json rule 12: {...}`.
struct MatchTextLines: AnswerTextRenderer {
    func line(_ request: MatchRequest, _ outcome: PageOutcome, decidedBy: DecidingRuleDescription?) -> String {
        var line: String
        switch outcome.kind {
        case .surrogate: line = "surrogate"
        case .blocked: line = "blocked "
        case .allowed: line = outcome.actions.isEmpty ? "allowed " : "actions "
        }
        line += " \(request.resourceType)  \(printable(request.url))  on \(printable(request.topURL))"
        if !outcome.actions.isEmpty { line += "  (" + outcome.actions.map(\.typeName).joined(separator: ", ") + ")" }
        if let surrogate = outcome.surrogate {
            line += "  (surrogate \(printable(surrogate)), served by \(ReleaseFiles.surrogatesJS))"
        }
        if let d = decidedBy { line += "  by " + summary(d) }
        return line
    }

    func errorLine(_ message: String) -> String { "error: " + printable(message) }

    /// `rules.json rule 12: {"source":"tds",...}`: the rule's provenance, else the rule itself.
    func summary(_ d: DecidingRuleDescription) -> String {
        let named = d.provenance?.jsonValue ?? d.ruleJSON
        return "\(d.list) rule \(d.rule)" + (named.map { ": " + JSONWriter.string($0) } ?? "")
    }

    /// Control characters would break the one-line-per-request form.
    func printable(_ s: String) -> String {
        s.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F } ? JSONWriter.string(.string(s)) : s
    }
}
