// faithful mode against a direct implementation of the TDS algorithm (README.md, Conversion modes, with the reference
// tests'
// readings: exact-host CNAME aliases, uncloaking only hosts no tracker claims, ports ignored, regexes searched in
// the whole URL): requests derived from the rules of a slice of the real iOS TDS, judged by both. The WebKit side
// is the WebKit model; the TDS side uses NSRegularExpression for the rule regexes.

import ContentRules
import Domains
import Foundation
import RuleBuilder
import TrackerData
import XCTest

/// The TDS decision for a request, straight from the data.
struct TDSOracle {
    let tds: TrackerDataSet
    private var regexes: [String: NSRegularExpression] = [:]

    init(tds: TrackerDataSet) {
        self.tds = tds
        for t in tds.trackers.values {
            for r in t.rules {
                regexes[r.rule] = try? NSRegularExpression(pattern: r.rule, options: [.caseInsensitive])
            }
        }
    }

    static let typeNames: [String: Set<String>] = [
        "xmlhttprequest": ["xmlhttprequest"], "subdocument": ["subdocument", "sub_frame"],
    ]

    func isBlocked(url: String, site: String, type: String) -> Bool {
        let canonicalURL = WebKitSimulator.canonical(url), siteURL = WebKitSimulator.canonical(site)
        var host = WebKitSimulator.host(canonicalURL)
        let siteHost = WebKitSimulator.host(siteURL)
        var tracker = tds.findTracker(forHost: host)
        var viaCNAME = false
        if tracker == nil, let target = tds.cnames[host] {
            tracker = tds.findTracker(forHost: target)
            host = target
            viaCNAME = true
        }
        guard let tracker else { return false }
        if !viaCNAME,
            Host.isSameOrSubdomain(
                WebKitSimulator.host(canonicalURL), of: PublicSuffixList.shared.webKitRegistrableDomain(host: siteHost))
        {
            return false
        }
        if let owner = tracker.owner?.name, tds.entityName(ofHost: siteHost) == owner { return false }
        // The URL the rules see: cloaked host replaced, port removed.
        let rest = canonicalURL[canonicalURL.range(of: "://")!.upperBound...]
        let path = rest[(rest.firstIndex(where: { $0 == "/" }) ?? rest.endIndex)...]
        let scheme = canonicalURL[..<canonicalURL.range(of: "://")!.lowerBound]
        let ruleURL = scheme + "://" + host + path
        func matches(_ m: RuleMatcher) -> Bool {
            if let d = m.domains, !d.isEmpty, !d.contains(where: { Host.isSameOrSubdomain(siteHost, of: $0) }) {
                return false
            }
            if let t = m.types, !t.isEmpty,
                !t.contains(where: { ($0 == type) || (Self.typeNames[type]?.contains($0) ?? false) })
            {
                return false
            }
            return true
        }
        for rule in tracker.rules {
            guard let re = regexes[rule.rule],
                re.firstMatch(in: ruleURL, range: NSRange(ruleURL.startIndex..., in: ruleURL)) != nil
            else { continue }
            if let o = rule.options, !matches(o) { continue }
            if rule.action == .ignore { return false }
            if let x = rule.exceptions, matches(x) { return false }
            return true
        }
        return tracker.defaultAction == .block
    }
}

final class DifferentialTests: XCTestCase {
    /// Concrete URL text for a rule regex (literal reading of its simple parts).
    private func sample(_ rule: String) -> String {
        var s = rule.replacingOccurrences(of: ".*", with: "x").replacingOccurrences(of: "\\.", with: ".")
            .replacingOccurrences(of: "\\/", with: "/").replacingOccurrences(of: "\\-", with: "-")
        s.removeAll { "[]()?+*^$\\".contains($0) }
        return s
    }

    func testFaithfulModeAgreesWithTheTDSAlgorithmOnTheIOSTDS() throws {
        let full = try Shared.tds(Shared.iosTDS)
        // A deterministic slice: every tracker with options or exceptions, and every 15th other tracker with rules,
        // their entities, and the CNAME aliases that point into the slice.
        var keep = Set<String>()
        for (i, d) in full.trackers.keys.sorted().enumerated() {
            let t = full.trackers[d]!
            if t.rules.contains(where: { $0.options != nil || $0.exceptions != nil })
                || (!t.rules.isEmpty && i % 45 == 0) || (t.rules.isEmpty && i % 97 == 0)
            {
                keep.insert(d)
            }
        }
        var tds = full
        tds.trackers = full.trackers.filter { keep.contains($0.key) }
        let aliases = full.cnames.keys.sorted().filter { tds.findTracker(forHost: full.cnames[$0]!) != nil }.prefix(25)
        tds.cnames = full.cnames.filter { aliases.contains($0.key) }
        let oracle = TDSOracle(tds: tds)
        let sim = WebKitSimulator(RuleBuilder.build(tds: tds, mode: .faithful).rules)

        var requests: [(String, String, String)] = []
        let types = ["script", "image", "xmlhttprequest", "stylesheet", "subdocument"]
        for d in keep.sorted() {
            let t = tds.trackers[d]!
            var sites = ["https://news.example/"]
            if let owner = t.owner?.name, let e = tds.entities[owner]?.domains.first {
                sites.append("https://www.\(e)/")
            }
            var urls = ["https://\(d)/x.js", "https://sub.\(d):8443/"]
            for (k, r) in t.rules.prefix(4).enumerated() {
                let s = sample(r.rule)
                urls.append("https://" + s)
                if k == 0 { urls.append("https://\(d)/r?u=" + s) }
                for m in [r.options, r.exceptions] {
                    if let site = m?.domains?.first { sites.append("https://\(site)/") }
                }
            }
            for (i, u) in urls.enumerated() {
                for (j, s) in sites.enumerated() { requests.append((u, s, types[(i + j) % types.count])) }
            }
        }
        for (alias, _) in tds.cnames.sorted(by: { $0.key < $1.key }) {
            requests.append(("https://\(alias)/collect", "https://news.example/", "script"))
            requests.append(("https://sub.\(alias)/collect", "https://news.example/", "image"))
        }
        var disagreements: [String] = []
        for (u, s, type) in requests {
            let expected = oracle.isBlocked(url: u, site: s, type: type)
            if sim.isBlocked(SimRequest(url: u, siteURL: s, type: type)) != expected {
                disagreements.append("\(u) on \(s) as \(type): TDS says \(expected ? "block" : "allow")")
            }
        }
        XCTAssertGreaterThan(requests.count, 600)
        XCTAssertEqual(disagreements, [], "\(disagreements.count) of \(requests.count) disagree")
        print(
            "differential: \(requests.count) requests over \(tds.trackers.count) trackers and \(tds.cnames.count) "
                + "aliases agree"
        )
    }
}
