// A small in-process model of how WebKit applies one content rule list to one load (WebKit's
// Source/WebCore/contentextensions/ContentExtensionsBackend.cpp):
// url-filter via URLFilter.matches (the reference matcher of WebKit's regex subset), resource-type / load-type /
// load-context flag tests, if/unless-domain against the top URL, and last-match: an ignore-previous-rules drops
// every earlier match. A load is blocked when a block action survives.

import ContentRules
import Domains
import Foundation
import RuleBuilder

struct SimRequest {
    var url: String
    var siteURL: String
    /// A TDS/webRequest type name ("script", "image", "stylesheet", "xmlhttprequest", ...) or a WebKit name.
    var type: String
    var topFrame: Bool = true
}

struct WebKitSimulator {
    let rules: [ContentRule]
    private let filters: [URLFilter]
    private let conditionFilters: [[URLFilter]]
    /// Per rule, a lowercase substring every URL it matches must contain (a speed-up only: the longest run of
    /// single-character top-level terms of its url-filter, which any match must spell out).
    private let required: [[UInt8]]

    init(_ rules: [ContentRule]) {
        self.rules = rules
        filters = rules.map {
            URLFilter.parse($0.trigger.urlFilter, caseSensitive: $0.trigger.urlFilterIsCaseSensitive)
        }
        required = filters.map(Self.requiredSubstring)
        conditionFilters = rules.map { r in
            (r.trigger.condition?.regexes ?? []).map {
                URLFilter.parse($0, caseSensitive: r.trigger.topURLFilterIsCaseSensitive)
            }
        }
    }

    static func requiredSubstring(_ filter: URLFilter) -> [UInt8] {
        guard filter.status == .ok, !filter.caseSensitive else { return [] }
        var best: [UInt8] = [], run: [UInt8] = []
        for term in filter.terms {
            var char: UInt8? = nil
            if case .characterSet(let set, .one) = term, !set.nonASCII {
                let members = (0..<128).filter { set.contains(symbol: $0) }
                let lowered = Set(members.map { UInt8($0 >= 65 && $0 <= 90 ? $0 + 32 : $0) })
                if lowered.count == 1, members.count == (lowered.first!.isLetter ? 2 : 1), lowered.first! != 0 {
                    char = lowered.first
                }
            }
            if let char { run.append(char) } else { if run.count > best.count { best = run }; run = [] }
        }
        return run.count > best.count ? run : best
    }

    static func webKitTypeBits(_ type: String) -> UInt32 {
        switch type {
        case "script": return ResourceTypeName.script
        case "image", "imageset": return ResourceTypeName.image
        case "stylesheet", "style-sheet": return ResourceTypeName.styleSheet
        case "font": return ResourceTypeName.font
        case "media": return ResourceTypeName.media
        case "xmlhttprequest", "fetch": return ResourceTypeName.fetch
        case "subdocument", "sub_frame", "child-document": return ResourceTypeName.childDocument
        case "main_frame", "top-document": return ResourceTypeName.topDocument
        case "websocket": return ResourceTypeName.webSocket
        case "ping": return ResourceTypeName.ping
        case "csp_report", "csp-report": return ResourceTypeName.cspReport
        case "popup": return ResourceTypeName.popup
        default: return ResourceTypeName.other
        }
    }

    /// Lowercase scheme and host, default port removed, "/" path when missing (what WebKit's URL parser does
    /// for the http(s) URLs the tests use).
    static func canonical(_ url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return url }
        let scheme = url[..<schemeEnd.lowerBound].lowercased()
        var rest = Substring(url[schemeEnd.upperBound...])
        let hostEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        var hostPort = rest[..<hostEnd].lowercased()
        rest = rest[hostEnd...]
        if let colon = hostPort.lastIndex(of: ":") {
            let port = hostPort[hostPort.index(after: colon)...]
            if (scheme == "https" && port == "443") || (scheme == "http" && port == "80") || port.isEmpty {
                hostPort = String(hostPort[..<colon])
            }
        }
        if !rest.hasPrefix("/") { rest = "/" + rest }
        return scheme + "://" + hostPort + rest
    }

    static func host(_ canonicalURL: String) -> String {
        guard let r = canonicalURL.range(of: "://") else { return "" }
        let rest = canonicalURL[r.upperBound...]
        let hostPort = rest[..<(rest.firstIndex(of: "/") ?? rest.endIndex)]
        return String(hostPort.split(separator: ":", maxSplits: 1).first ?? "")
    }

    /// The actions that survive, in order (block / ignore-previous-rules only, as in tracker lists).
    func matchingRuleIndices(_ request: SimRequest) -> [Int] {
        let url = Self.canonical(request.url)
        let site = Self.canonical(request.siteURL)
        let siteDomain = PublicSuffixList.shared.webKitRegistrableDomain(host: Self.host(site))
        let thirdParty = !Host.isSameOrSubdomain(Self.host(url), of: siteDomain)
        let flags =
            Self.webKitTypeBits(request.type)
            | (thirdParty ? LoadTypeName.thirdParty : LoadTypeName.firstParty)
            | (request.topFrame ? LoadContextName.topFrame : LoadContextName.childFrame)
        let urlBytes = Array(url.utf8), siteBytes = Array(site.utf8)
        let lowerURL = urlBytes.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }
        var matched: [Int] = []
        for (i, rule) in rules.enumerated() {
            let rf = rule.trigger.flags
            if rf & ResourceTypeName.mask != 0, rf & flags & ResourceTypeName.mask == 0 { continue }
            if rf & LoadTypeName.mask != 0, rf & flags & LoadTypeName.mask == 0 { continue }
            if rf & LoadContextName.mask != 0, rf & flags & LoadContextName.mask == 0 { continue }
            if !required[i].isEmpty, !lowerURL.contains(required[i]) { continue }
            guard filters[i].matches(urlBytes) else { continue }
            if let c = rule.trigger.condition {
                let hit = conditionFilters[i].contains { $0.matches(siteBytes) }
                if c.kind.isInclusive != hit { continue }
            }
            matched.append(i)
        }
        if let lastIgnore = matched.lastIndex(where: { rules[$0].action == .ignorePreviousRules }) {
            matched = Array(matched[(lastIgnore + 1)...])
        }
        return matched
    }

    func isBlocked(_ request: SimRequest) -> Bool {
        matchingRuleIndices(request).contains { rules[$0].action == .block }
    }
}

extension UInt8 {
    var isLetter: Bool { (self >= 97 && self <= 122) }
}

extension Array where Element == UInt8 {
    func contains(_ needle: [UInt8]) -> Bool {
        guard needle.count <= count else { return false }
        if needle.isEmpty { return true }
        let first = needle[0]
        var i = 0
        while i <= count - needle.count {
            if self[i] == first, self[i..<(i + needle.count)].elementsEqual(needle) { return true }
            i += 1
        }
        return false
    }
}
