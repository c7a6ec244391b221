// A network filter's options as the rest of a WebKit trigger: resource types, load type and the frame condition
// of `$domain`, each exact or refused with the reason (docs/filter-lists.md, "Options").
//
// Types. A filter without a type option applies to every load but the page's own document and popups (ABP;
// adblock-rust 0.6.0 also blocks navigations, a deviation the docs list): its rule has no `resource-type`, and the
// converter's navigation reset cancels it for those two types. WebKit's "other" trigger name also covers ping and
// csp-report loads, and WebKit types navigator.sendBeacon as other where ABP calls it ping: a filter that names
// `ping` or `other` (or excludes one
// of them without the other) cannot be told apart, and is reported. Object, WebRTC and popup loads have no
// WebKit type that means the same.
//
// `$domain` names the sites of the document the load comes from, which is WebKit's frame URL (the initiating
// frame's document), not the top page: it becomes `if-frame-url` (`unless-frame-url` for `~` entries) with the
// anchored domain regex every site condition of radarblock uses, on targets that read them. Sites mixed with ~sites
// under them (`a.com|~b.a.com`) are one `if-frame-url` list of label-complement regexes (mixedCondition).
//
// Frames. A frame's own document loads in the new frame, whose URL is about:blank then (WebKit), and ABP judges it
// on the document holding the frame: the child-document part of a `$domain` filter is its own rule with the same
// regexes on the top URL (framesOnTop), exact for frames of the top page; a frame in another site's frame is judged
// on the top page by WebKit, on its parent by ABP (docs/filter-lists.md).

import AdblockSyntax
import ContentRules
import RuleBuilder
import TrackerData

enum FilterTrigger {
    /// Every type a filter without a type option applies to (WebKit trigger names).
    static let defaultTypes = [
        "child-document", "image", "style-sheet", "script", "font", "svg-document", "media", "fetch", "websocket",
        "other",
    ]

    static func webKitName(_ type: FilterRequestType) -> Result<String?, FilterSyntaxError> {
        switch type {
        case .script: return .success("script")
        case .image: return .success("image")
        case .stylesheet: return .success("style-sheet")
        case .font: return .success("font")
        case .media: return .success("media")
        case .subdocument: return .success("child-document")
        case .xmlhttprequest: return .success("fetch")
        case .websocket: return .success("websocket")
        case .document: return .success("top-document")
        case .ping, .other:
            return .failure(
                FilterSyntaxError(
                    message: "$\(type.rawValue): WebKit's \"other\" also covers pings and CSP reports, and WebKit types"
                        + " navigator.sendBeacon as other where ABP calls it ping"))
        case .object, .objectSubrequest, .webrtc, .popup:
            return .failure(
                FilterSyntaxError(message: "$\(type.rawValue): WebKit has no resource type that means the same"))
        }
    }

    /// The `resource-type` list; nil for every type of `defaultTypes` (the converter's navigation reset keeps the
    /// page's own document and popups out).
    static func resourceTypes(_ options: NetworkOptions) -> Result<[String]?, FilterSyntaxError> {
        var names: [String]
        if options.types.isEmpty {
            names = defaultTypes
        } else {
            names = []
            for type in FilterRequestType.allCases where options.types.contains(type) {
                switch webKitName(type) {
                case .success(let name): names.append(name!)
                case .failure(let e): return .failure(e)
                }
            }
        }
        let excluded = options.excludedTypes
        if excluded.contains(.ping) != excluded.contains(.other) {
            return .failure(
                FilterSyntaxError(
                    message: "$~\(excluded.contains(.ping) ? "ping" : "other"): WebKit's \"other\" cannot be split"
                        + " from pings and CSP reports"))
        }
        if let odd = excluded.first(where: { [.object, .objectSubrequest, .webrtc].contains($0) }) {
            return .failure(
                FilterSyntaxError(
                    message: "$~\(odd.rawValue): WebKit types these loads by their content, so they cannot be left"
                        + " out"))
        }
        for type in excluded {
            switch type {
            case .ping, .other: names.removeAll { $0 == "other" }
            default:
                if case .success(let name?) = webKitName(type) { names.removeAll { $0 == name } }
            }
        }
        return .success(names == defaultTypes ? nil : names)
    }

    /// The frame condition of `$domain`, nil without one.
    static func condition(
        _ domains: [DomainEntry], target: EngineProfile
    ) -> Result<TriggerCondition?, FilterSyntaxError> {
        guard !domains.isEmpty else { return .success(nil) }
        if let odd = domains.first(where: { $0.domain.contains("*") || !$0.domain.utf8.allSatisfy { $0 < 0x80 } }) {
            return .failure(
                FilterSyntaxError(
                    message: "$domain entry \"\(odd.domain)\": wildcard (entity) and non-ASCII entries are not"
                        + " converted"))
        }
        let included = domains.filter { !$0.excluded }
        let excluded = domains.filter(\.excluded)
        if !included.isEmpty && !excluded.isEmpty {
            return mixedCondition(included: included, excluded: excluded, target: target)
        }
        let kind: TriggerCondition.Kind = excluded.isEmpty ? .ifFrameURL : .unlessFrameURL
        if let why = unread(kind, by: target, for: "$domain") { return .failure(why) }
        return .success(
            TriggerCondition(kind, domains.map { TriggerCondition.anchoredDomainRegex("*" + $0.domain) }))
    }

    /// `$domain=a.com|~b.a.com`: when no site lies at or under a ~site, ABP's "most specific entry decides" and
    /// adblock-rust's "an excluded site always wins" agree. The frames where the filter applies are then one
    /// `if-frame-url` list: each site, less its ~sites, as the label-complement regexes the cookie pop-up list
    /// writes for its sites (CosmeticSiteCondition). Other mixes are reported.
    static func mixedCondition(
        included: [DomainEntry], excluded: [DomainEntry], target: EngineProfile
    ) -> Result<TriggerCondition?, FilterSyntaxError> {
        if let odd = included.first(where: { i in
            excluded.contains { i.domain == $0.domain || i.domain.hasSuffix("." + $0.domain) }
        }) {
            return .failure(
                FilterSyntaxError(
                    message: "$domain: \(odd.domain) lies at or under a ~site, where ABP (the most specific entry) and"
                        + " adblock-rust (the ~site) differ"))
        }
        if let why = unread(.ifFrameURL, by: target, for: "$domain") { return .failure(why) }
        // A ~site outside every site changes nothing.
        let excluded = excluded.filter { e in included.contains { e.domain.hasSuffix("." + $0.domain) } }
        let entries = (included + excluded).map {
            TrackerData.CosmeticFilter.SiteEntry(domain: $0.domain, include: !$0.excluded)
        }
        let sites = CosmeticSites(entries: entries, exceptions: [])
        return .success(CosmeticSiteCondition.make(sites, inclusive: .ifFrameURL))
    }

    /// `rule` with its child-document part, when it has one and a frame condition, split off as a rule whose
    /// condition reads the top URL instead; the other types keep the frame condition.
    static func framesOnTop(_ rule: ContentRule, target: EngineProfile) -> Result<[ContentRule], FilterSyntaxError> {
        guard let condition = rule.trigger.condition, condition.kind.isFrameURL else { return .success([rule]) }
        let types = rule.trigger.resourceTypes ?? defaultTypes
        guard types.contains("child-document") else { return .success([rule]) }
        let top: TriggerCondition.Kind = condition.kind.isInclusive ? .ifTopURL : .unlessTopURL
        if let why = unread(top, by: target, for: "$domain on frames") { return .failure(why) }
        var frames = rule
        frames.trigger.resourceTypes = ["child-document"]
        frames.trigger.condition = TriggerCondition(top, condition.values)
        var rest = rule
        rest.trigger.resourceTypes = types.filter { $0 != "child-document" }
        return .success((rest.trigger.resourceTypes!.isEmpty ? [] : [rest]) + [frames])
    }

    /// Why `target` cannot judge the load's frame with a `kind` condition, which `option` needs; nil when it can.
    static func unread(_ kind: TriggerCondition.Kind, by target: EngineProfile, for option: String)
        -> FilterSyntaxError?
    {
        guard !target.reads(kind) else { return nil }
        return FilterSyntaxError(
            message: "\(option) judges the load's frame, which needs \(kind.rawValue), not read by \(target.name)")
    }
}
