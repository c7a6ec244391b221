// Rules for the privacy-config features that decide blocking besides the TDS: the request blocklist, and the
// site conditions that a feature's own `exceptions` put on its rules. Shared by both modes: TrackerRadarKit
// has no request blocklist, so there is no behaviour of its to keep.
//
// Request blocklist (privacy-reference-tests/request-blocklist): `host[:port][/path]`, `*` the only wildcard,
// open end, host case-insensitive and covering its subdomains, path and query case-sensitive, a port only when
// written (then exactly it). A rule blocks first-party requests too, never a top-level document (the builders'
// final top-level rule), and is overridden by the tracker allowlist, the temp list and user-unprotected sites
// (emitted after it). Every rule blocks, so when several match the request is blocked whichever applies.

import ContentRules
import Domains
import Provenance
import StrictJSON
import TrackerData

/// A feature rule's site condition once the feature's own exceptions are taken out.
struct SiteCondition {
    /// The trigger condition (nil: every site).
    var condition: TriggerCondition?
    /// Exceptions strictly under a listed site: an if-domain list cannot leave them out.
    var unexpressed: [String]

    /// nil when no site is left (every listed site is under an exception).
    static func make(_ sites: AllowlistEntry.Sites, except exceptions: [String]) -> SiteCondition? {
        switch sites {
        case .all:
            return SiteCondition(
                condition: exceptions.isEmpty ? nil : .init(.unlessDomain, unique(exceptions).wildcards),
                unexpressed: [])
        case .domains(let listed):
            let kept = unique(listed).filter { d in !exceptions.contains { Host.isSameOrSubdomain(d, of: $0) } }
            if kept.isEmpty { return nil }
            let under = unique(exceptions).filter { e in kept.contains { e != $0 && Host.isSameOrSubdomain(e, of: $0) }
            }
            return SiteCondition(condition: .init(.ifDomain, kept.wildcards), unexpressed: under)
        }
    }
}

func unique(_ list: [String]) -> [String] {
    var seen = Set<String>()
    return list.filter { seen.insert($0).inserted }
}

enum RequestBlocklistRules {
    /// The url-filter: scheme, any subdomains, the host, the port when written (else none), the path with `*`
    /// as `.*`; case-sensitive, so the path is (WebKit lowercases scheme and host in the URL it matches).
    /// `guardTopLevel`: follow each block with a reset for top-level documents (ddg mode, which has no final
    /// top-level rule of its own).
    static func emit(_ blocklist: RequestBlocklist, guardTopLevel: Bool = false, into sink: inout RuleSink) {
        for r in blocklist.rules {
            let origin = RuleProvenance(source: .requestBlocklist, tracker: r.domain, allowlistIndex: r.index)
            let path = ConversionIssue.requestBlocklistPath(r)
            guard let site = SiteCondition.make(r.sites, except: blocklist.exceptions) else {
                sink.issues.append(
                    ConversionIssue(
                        kind: .neverApplies, location: .config(path),
                        message: "every site of the rule is under a requestBlocklist exception; left out"))
                continue
            }
            if r.path.contains(".*") {
                sink.issues.append(
                    ConversionIssue(
                        kind: .configNote, location: .config(path / "rule"),
                        message:
                            "\".*\" reads like regex syntax, but \"*\" is the only wildcard: the \".\" matches a "
                            + "literal dot (as DuckDuckGo's reference tests require)"
                    ))
            }
            let filter = r.urlFilter
            sink.emit(
                ContentRule(
                    trigger: Trigger(urlFilter: filter, urlFilterIsCaseSensitive: true, condition: site.condition),
                    action: .block),
                origin)
            if guardTopLevel {
                var navigation = origin
                navigation.role = .topLevel
                sink.emit(
                    ContentRule(
                        trigger: Trigger(
                            urlFilter: filter, urlFilterIsCaseSensitive: true, resourceTypes: ["top-document"],
                            condition: site.condition), action: .ignorePreviousRules), navigation)
            }
            if !site.unexpressed.isEmpty {
                // WebKit has one site condition per trigger: the exception becomes a reset, which also lets through
                // TDS blocks of the same URLs on that site.
                var reset = origin
                reset.role = .exception
                sink.emit(
                    ContentRule(
                        trigger: Trigger(
                            urlFilter: filter, urlFilterIsCaseSensitive: true,
                            condition: .init(.ifDomain, site.unexpressed.wildcards)), action: .ignorePreviousRules),
                    reset)
                sink.issues.append(
                    ConversionIssue(
                        kind: .configNote, location: .config(path),
                        message:
                            "requestBlocklist exceptions \(site.unexpressed.joined(separator: ", ")) lie under a site "
                            + "of the rule; they are applied as a reset that also lets through tracker blocks of "
                            + "the same URLs there"
                    ))
            }
        }
    }
}

extension ConversionIssue {
    static func requestBlocklistPath(_ r: RequestBlockRule) -> JSONPath {
        JSONPath.root / "features" / "requestBlocklist" / "settings" / "blockedRequests" / r.domain / "rules" / r.index
    }
}
