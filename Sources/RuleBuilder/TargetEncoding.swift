// The builders write rules for the newest engine; an older target gets an equivalent encoding where one
// exists, and the rest is left out and reported (like regexes WebKit cannot express), never emitted in a
// form the target would ignore or reject.
//
// Equivalences used (over the loads a browser issues):
//   resource-type top-document    = document + load-context top-frame    (a main-frame navigation is the only
//   resource-type child-document  = document + load-context child-frame   document load in the top frame)
// A rule whose types mix document kinds with other types is split in two adjacent rules with the same
// action: a load has exactly one type, so at most one of the two matches, where the original matched.

import ContentRules
import Provenance

public enum TargetEncoding {
    /// `built` re-encoded for `target`, every list of it (main, click-to-load, attribution); rules that cannot be
    /// expressed there are left out and reported.
    public static func adapt(_ built: RuleBuildResult, for target: EngineProfile) -> RuleBuildResult {
        var out = built
        (out.rules, out.provenance) = adapt(built.rules, built.provenance, for: target, issues: &out.issues)
        for i in out.clickToLoadLists.indices {
            let list = out.clickToLoadLists[i]
            (out.clickToLoadLists[i].rules, out.clickToLoadLists[i].provenance) = adapt(
                list.rules, list.provenance, for: target, issues: &out.issues)
        }
        if let list = out.attributionList {
            (out.attributionList!.rules, out.attributionList!.provenance) = adapt(
                list.rules, list.provenance, for: target, issues: &out.issues)
        }
        return out
    }

    /// One list's rules re-encoded for `target`, with the provenance of each; what cannot be expressed is
    /// appended to `issues`.
    static func adapt(
        _ rules: [ContentRule], _ provenance: [RuleProvenance], for target: EngineProfile,
        issues: inout [ConversionIssue]
    ) -> ([ContentRule], [RuleProvenance]) {
        var out: ([ContentRule], [RuleProvenance]) = ([], [])
        out.0.reserveCapacity(rules.count)
        out.1.reserveCapacity(rules.count)
        for (rule, provenance) in zip(rules, provenance) {
            switch encode(rule, for: target) {
            case .rules(let encoded):
                out.0 += encoded
                for _ in encoded { out.1.append(provenance) }
            case .unexpressible(let why):
                issues.append(
                    ConversionIssue(
                        kind: .unexpressibleOnTarget, location: .output,
                        message: "\(provenance): \(why); left out for \(target.name)",
                        tracker: provenance.tracker))
            }
        }
        return out
    }

    enum Encoded: Equatable {
        case rules([ContentRule])
        case unexpressible(String)
    }

    static func encode(_ rule: ContentRule, for target: EngineProfile) -> Encoded {
        if !target.accepts(actionType: rule.action.typeName) {
            return .unexpressible("the \(rule.action.typeName) action does not exist there")
        }
        var rule = rule
        // An empty list restricts nothing; an engine that does not read the key needs no key at all.
        if rule.trigger.loadContexts?.isEmpty == true && !target.readsLoadContext { rule.trigger.loadContexts = nil }
        let t = rule.trigger
        if let kind = t.condition?.kind, !target.reads(kind) {
            return .unexpressible("\(kind.rawValue) is not read there")
        }
        if t.requestMethod != nil && !target.readsRequestMethod {
            return .unexpressible("request-method is not read there")
        }
        if t.loadContexts?.isEmpty == false && !target.readsLoadContext {
            return .unexpressible("load-context is not read there")
        }
        guard let types = t.resourceTypes, types.contains(where: { !target.accepts(resourceType: $0) }) else {
            return .rules([rule])
        }
        return splitDocumentTypes(&rule, types, for: target)
    }

    static func splitDocumentTypes(_ rule: inout ContentRule, _ types: [String], for target: EngineProfile) -> Encoded {
        let documentKinds = types.filter { $0 == "top-document" || $0 == "child-document" }
        let others = types.filter { $0 != "top-document" && $0 != "child-document" }
        var rules: [ContentRule] = []
        if !others.isEmpty {
            var r = rule
            r.trigger.resourceTypes = others
            rules.append(r)
        }
        // "document" among the other types already covers both kinds.
        if !others.contains("document") {
            let context: [String]? =
                Set(documentKinds).count == 2
                ? nil
                : [documentKinds[0] == "top-document" ? "top-frame" : "child-frame"]
            if let context {
                guard target.readsLoadContext else {
                    return .unexpressible("\(documentKinds[0]) needs load-context, which is not read there")
                }
                if let existing = rule.trigger.loadContexts, !existing.isEmpty, !existing.contains(context[0]) {
                    return .rules(rules) // the document part could never match
                }
            }
            var r = rule
            r.trigger.resourceTypes = ["document"]
            if let context { r.trigger.loadContexts = context }
            rules.append(r)
        }
        return .rules(rules)
    }
}
