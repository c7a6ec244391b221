// `match --url`'s listing of the rules behind an answer: the engine's explanation of the load (LoadExplanation)
// rendered as text, list by list.

import StrictJSON
import RuleEngine

enum ExplainListing {
    static func text(_ explanation: LoadExplanation) -> String {
        switch explanation {
        case .invalidURL(let url): return "\(url): not a valid URL: WebKit applies no rules to it.\n"
        case .dataURL(let url): return "\(url): data: URLs are never matched by WebKit.\n"
        case .load(let load):
            var s = "request    \(load.url)\n"
            s += "type       \(loadType(load))\n"
            s += "top URL    \(load.topURL)\n"
            s += "frame URL  \(load.frameURL)\n"
            for list in load.lists { s += list.hasSource ? listText(list) : listTextWithoutSource(list) }
            var line: [UInt8] = []
            load.answer.writeJSONLine(into: &line)
            return s + "\nanswer     " + String(decoding: line, as: UTF8.self)
        }
    }

    static func loadType(_ load: ExplainedLoad) -> String {
        var parts = load.resourceType.map { [$0] } ?? []
        parts.append(load.thirdParty ? "third-party" : "first-party")
        parts.append(load.topFrame ? "top-frame" : "child-frame")
        parts.append("method: " + (load.method ?? "none"))
        return parts.joined(separator: ", ")
    }

    static func listText(_ list: ExplainedList) -> String {
        var s = "\nlist \(list.index + 1): \(list.identifier)\n"
        if list.reportsNothing { s += "  no actions\n" }
        for action in list.actions {
            s += "  \(JSONWriter.string(action.action))\n"
            for rule in action.rules { s += "      from rule \(rule.sourceIndex): \(JSONWriter.string(rule.rule))\n" }
        }
        if !list.notReported.isEmpty {
            s += "  matched but not reported:\n"
            for r in list.notReported {
                s += "    rule \(r.rule.sourceIndex) (\(why(r.why))): \(JSONWriter.string(r.rule.rule))\n"
            }
        }
        s += stylesheetLine(list)
        if list.automatonDiffers {
            s += "  WARNING: the automaton's answer differs from the rule-by-rule answer (please report this)\n"
        }
        return s
    }

    static func listTextWithoutSource(_ list: ExplainedList) -> String {
        var s =
            "\nlist \(list.index + 1): \(list.identifier) (compiled without its source: rules are named by index "
            + "only;\n"
        s += "  compile with --embed-source, or give the JSON list, to see their triggers)\n"
        if list.reportsNothing { s += "  no actions\n" }
        for action in list.actions {
            let sharing = action.sharing
            s +=
                "  \(JSONWriter.string(action.action))\n"
                + (sharing.count == 1
                    ? "      the action of rule \(sharing[0])\n"
                    : "      one action stored once for \(sharing.count) rules (\(sharing.first!) to "
                        + "\(sharing.last!)); without the\n"
                        + "      source the .rbc cannot tell which of them matched\n")
        }
        return s + stylesheetLine(list)
    }

    static func stylesheetLine(_ list: ExplainedList) -> String {
        guard !list.stylesheet.isEmpty else { return "" }
        return list.stylesheetWithheld
            ? "  global stylesheet withheld (an ignore-previous-rules matched)\n"
            : "  global stylesheet: \(list.stylesheet)\n"
    }

    static func why(_ why: UnreportedRule.Why) -> String {
        switch why {
        case .inStylesheet: return "in the list's global stylesheet"
        case .ignorePreviousRules: return "ignore-previous-rules: cancels the actions before it"
        case .ignoreFollowingRules: return "ignore-following-rules: cuts off the actions after it"
        case .cancelled: return "cancelled by ignore-previous-rules or cut off by ignore-following-rules"
        }
    }
}
