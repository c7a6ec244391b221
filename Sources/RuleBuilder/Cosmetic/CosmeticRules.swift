// Element-hiding filters, exceptions applied (TrackerData's CosmeticHide) -> css-display-none rules: each selector
// translated and checked, written with the quirks-mode rewrite, and joined with the others of the same site
// condition, the selectors hidden everywhere first (the global style sheet). CookiePopupRules.swift's file comment
// says why each step is so; the cookie pop-up list and filter lists' cosmetic filters (FilterLists) share it.

import ContentRules
import Provenance
import StrictJSON
import TrackerData

/// What a list of element-hiding filters becomes.
public struct CosmeticHideRules: Sendable {
    public var rules: [ContentRule] = []
    /// Parallel to `rules`, each naming the lines its selectors come from.
    public var provenance: [RuleProvenance] = []
    /// Filters only the script layer can apply (`:-abp-contains`).
    public var scripted: [CosmeticScriptHide] = []
    /// Selectors refused, with the line of their filter.
    public var issues: [CosmeticLineIssue] = []
    /// Selectors written into rules.
    public var selectors = 0
    /// ABP extended selectors written as `:has()`.
    public var hasSelectors = 0
}

public enum CosmeticRules {
    /// How a list reads ABP's extended CSS (`:-abp-has`, `:-abp-contains`).
    public enum ExtendedCSS: Sendable {
        /// `:-abp-has` as `:has`, `:-abp-contains` for the script layer (the cookie pop-up list).
        case translated
        /// Reported: a list with no script layer, read as adblock-rust reads it (filter lists).
        case reported
    }

    /// `origin` is each rule's provenance less its lines.
    public static func build(
        _ hides: [CosmeticHide], target: EngineProfile, extendedCSS: ExtendedCSS, origin: RuleProvenance
    ) -> CosmeticHideRules {
        var out = CosmeticHideRules()
        var groups: [TriggerCondition?: (selectors: [String], lines: [Int])] = [:]
        var order: [TriggerCondition?] = []
        var seen: Set<SelectorAt> = []
        for hide in hides {
            let translated: CookiePopupSelector
            switch translate(hide.selector, target: target, extendedCSS: extendedCSS) {
            case .failure(let why):
                out.issues.append(
                    CosmeticLineIssue(
                        line: hide.lines[0], kind: .outOfScope,
                        message: "selector \(quoted(hide.selector)): \(why.message); left out"))
                continue
            case .success(let t): translated = t
            }
            if let text = translated.contains {
                out.scripted.append(
                    CosmeticScriptHide(
                        selector: hide.selector, css: translated.css, text: text, sites: hide.sites, lines: hide.lines))
                continue
            }
            if translated.css != hide.selector { out.hasSelectors += 1 }
            let css = QuirksModeSelectors.rewrite(translated.css)
            let condition = CosmeticSiteCondition.make(hide.sites)
            guard seen.insert(SelectorAt(selector: css, condition: condition)).inserted else { continue }
            if groups[condition] == nil { order.append(condition) }
            groups[condition, default: ([], [])].selectors.append(css)
            groups[condition, default: ([], [])].lines += hide.lines
        }
        // The selectors hidden everywhere first: with no condition and nothing before them, they are the global sheet.
        if let i = order.firstIndex(where: { $0 == nil }), i > 0 { order.insert(order.remove(at: i), at: 0) }
        for condition in order {
            let g = groups[condition]!
            let trigger = Trigger(
                urlFilter: ".*", resourceTypes: condition == nil ? nil : ["document"], condition: condition)
            out.rules.append(
                ContentRule(trigger: trigger, action: .cssDisplayNone(selector: g.selectors.joined(separator: ", "))))
            var provenance = origin
            provenance.filterLines = g.lines.sorted()
            out.provenance.append(provenance)
            out.selectors += g.selectors.count
        }
        return out
    }

    static func translate(
        _ selector: String, target: EngineProfile, extendedCSS: ExtendedCSS
    ) -> Result<CookiePopupSelector, CookiePopupSelector.Refusal> {
        if extendedCSS == .reported, CookiePopupSelector.hasABPMarker(selector) {
            return .failure(.init(message: "ABP's extended CSS (:-abp-...) is procedural: no WebKit selector"))
        }
        return CookiePopupSelector.translate(selector, target: target)
    }

    private struct SelectorAt: Hashable {
        var selector: String
        var condition: TriggerCondition?
    }
}
