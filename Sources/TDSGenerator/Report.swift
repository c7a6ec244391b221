// Human- and machine-readable accounts of a generation: `--explain DOMAIN`, the JSON report (every decision,
// every rule's provenance, every override applied, every issue), and the agreement with a reference TDS.

import Domains
import StrictJSON
import TrackerData

extension TDSGeneration {
    /// Why `domain` is or is not a tracker, and where each of its rules came from.
    public func explain(_ rawDomain: String, policy: TDSPolicy) -> String {
        let domain = (try? DomainNormalizer.normalize(rawDomain)) ?? rawDomain.lowercased()
        guard let d = decision(for: domain) else {
            var s = "\(domain): not in the radar data (no domain file), so not a tracker.\n"
            if let covering = Host.suffixes(of: domain).dropFirst().first(where: { tds.trackers[$0] != nil }) {
                s +=
                    "  Requests to it are matched by the tracker \(covering) (TDS matching walks up the host); see "
                    + "--explain \(covering).\n"
            } else if let covering = Host.suffixes(of: domain).dropFirst().first(where: { decision(for: $0) != nil }) {
                s += "  Its parent \(covering) is in the radar data; see --explain \(covering).\n"
            }
            return s
        }
        var s = "\(domain): " + (d.defaultAction.map { "tracker, default \($0.rawValue)" } ?? "not a tracker") + "\n"
        if let r = d.radar {
            s +=
                "  radar (\(r.regions.isEmpty ? "no region" : r.regions.joined(separator: ", "))): prevalence "
                + "\(fmt(r.prevalence)) (\(r.sites) sites), "
                + "fingerprinting \(r.fingerprinting), cookies \(fmt(r.cookies)), \(r.resources.count) resource "
                + "patterns"
                + (r.categories.isEmpty ? "" : ", categories: \(r.categories.joined(separator: ", "))") + "\n"
            s += "  owner: " + (r.owner.map { $0.name } ?? "unknown (owner {})") + "\n"
        } else {
            s += "  not in the radar data; listed by an override only\n"
        }
        if let c = d.classification {
            s += "  policy:\n"
            for step in c.steps { s += "    \(step.rule): \(step.detail)\n" }
        }
        if d.overrides.isEmpty {
            s += "  overrides: none\n"
        } else {
            s += "  overrides:\n"
            for o in d.overrides { s += "    \(o)\n" }
        }
        if d.defaultAction != nil {
            if d.rules.isEmpty {
                s += "  rules: none (the default decides every request)\n"
            } else {
                s += "  rules (most specific first; the first match wins):\n"
                for (i, r) in d.rules.enumerated() {
                    var attrs: [String] = []
                    if let sur = r.rule.surrogate { attrs.append("surrogate \(sur)") }
                    if let a = r.rule.action { attrs.append("action \(a.rawValue)") }
                    if let o = r.rule.options { attrs.append("options \(matcherText(o))") }
                    if let x = r.rule.exceptions { attrs.append("exceptions \(matcherText(x))") }
                    s +=
                        "    \(i + 1). \(r.rule.rule)" + (attrs.isEmpty ? "" : "  [\(attrs.joined(separator: "; "))]")
                        + "\n"
                    for p in r.provenance { s += "       from \(p)\n" }
                }
            }
            if !d.resourcesNotRules.isEmpty {
                s += "  resources not made rules:\n"
                for r in d.resourcesNotRules { s += "    \(r)\n" }
            }
        }
        let cnames = tds.cnames.filter { $0.value == domain || $0.value.hasSuffix("." + domain) }
        if d.defaultAction != nil, !cnames.isEmpty {
            s +=
                "  cnames into it: "
                + cnames.keys.sorted(by: byteOrder).map { "\($0) -> \(cnames[$0]!)" }.joined(separator: ", ") + "\n"
        }
        return s
    }

    /// The generation report: policy, per-domain decisions with reasons, rule provenance, overrides, issues, notes.
    public func reportJSON(policy: TDSPolicy) -> JSONValue {
        var domains = JSONObject()
        for d in decisions {
            var o = JSONObject()
            o["tracker"] = .bool(d.defaultAction != nil)
            if let a = d.defaultAction { o["default"] = .string(a.rawValue) }
            if let c = d.classification {
                o["policyDefault"] = c.defaultAction.map { .string($0.rawValue) } ?? .null
                o["decidedBy"] = .string(c.decidedBy)
                o["steps"] = .array(c.steps.map { .string($0.description) })
            }
            if !d.overrides.isEmpty { o["overrides"] = .array(d.overrides.map { .string($0) }) }
            if !d.rules.isEmpty {
                o["rules"] = .array(
                    d.rules.map { r in
                        .object(
                            JSONObject([
                                ("rule", .string(r.rule.rule)), ("from", .array(r.provenance.map { .string($0) })),
                            ]))
                    })
            }
            if !d.resourcesNotRules.isEmpty { o["resourcesNotRules"] = .array(d.resourcesNotRules.map { .string($0) }) }
            domains[d.domain] = .object(o)
        }
        return .object(
            JSONObject([
                ("policy", policy.jsonValue),
                (
                    "counts",
                    .object(
                        JSONObject([
                            ("radarDomains", .number(Double(decisions.filter { $0.radar != nil }.count))),
                            ("trackers", .number(Double(tds.trackers.count))),
                            ("block", .number(Double(tds.trackers.values.filter { $0.defaultAction == .block }.count))),
                            (
                                "ignore",
                                .number(Double(tds.trackers.values.filter { $0.defaultAction == .ignore }.count))
                            ),
                            ("rules", .number(Double(tds.ruleCount))),
                            ("entities", .number(Double(tds.entities.count))),
                            ("cnames", .number(Double(tds.cnames.count))),
                            ("issues", .number(Double(issues.count))),
                        ]))
                ),
                ("domains", .object(domains)),
                ("issues", .array(issues.map { .string($0.description) })),
                ("notes", .array(notes.map { .string($0) })),
            ]))
    }
}

func matcherText(_ m: RuleMatcher) -> String {
    var parts: [String] = []
    if let d = m.domains { parts.append("domains " + d.joined(separator: ",")) }
    if let t = m.types { parts.append("types " + t.joined(separator: ",")) }
    return parts.joined(separator: " ")
}

// MARK: - Agreement with a reference TDS

public struct TDSAgreement: Sendable {
    public struct Row: Sendable, Hashable {
        public var domain: String
        /// "block", "ignore" or "-" (not a tracker).
        public var expected: String
        public var got: String
        public var decidedBy: String
        public var detail: String
        public var agrees: Bool { expected == got }
    }
    /// One row per radar domain, sorted by domain.
    public var rows: [Row]
    public var agreeing: Int { rows.filter(\.agrees).count }
    public var fraction: Double { rows.isEmpty ? 0 : Double(agreeing) / Double(rows.count) }
    public var disagreements: [Row] { rows.filter { !$0.agrees } }

    /// Compares, for every radar domain of the generation, "tracker or not, and which default" with `reference`.
    /// Uses the policy decision (overrides are a human layer; measure without them).
    public static func compare(_ generation: TDSGeneration, reference: TrackerDataSet) -> TDSAgreement {
        var rows: [Row] = []
        for d in generation.decisions where d.radar != nil {
            let expected =
                reference.trackers[d.domain]?.defaultAction?.rawValue
                ?? (reference.trackers[d.domain] != nil ? "?" : "-")
            let got = d.defaultAction?.rawValue ?? "-"
            rows.append(
                Row(
                    domain: d.domain, expected: expected, got: got,
                    decidedBy: d.classification?.decidedBy ?? "override",
                    detail: d.classification?.steps.last?.detail ?? ""))
        }
        return TDSAgreement(rows: rows)
    }

    public var text: String {
        var s =
            "agreement: \(agreeing)/\(rows.count) domains (\(String(format: "%.1f", fraction * 100))%) on "
            + "tracker/default\n"
        var confusion: [String: Int] = [:]
        for r in rows { confusion["\(r.expected)->\(r.got)", default: 0] += 1 }
        s +=
            "  reference->generated: "
            + confusion.keys.sorted().map { "\($0) \(confusion[$0]!)" }.joined(separator: ", ") + "\n"
        if !disagreements.isEmpty {
            s += "disagreements (reference -> generated: domain, deciding rule: detail):\n"
            for r in disagreements { s += "  \(r.expected) -> \(r.got): \(r.domain), \(r.decidedBy): \(r.detail)\n" }
        }
        return s
    }
}

import Foundation
