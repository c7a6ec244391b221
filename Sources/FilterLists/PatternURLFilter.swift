// A network filter's pattern as a WebKit url-filter with the same matches (docs/filter-lists.md, "Patterns"):
//   `||`   `hostStart`: any scheme, then the host's start or a label's start (ABP's own regex for `||`, less a
//          userinfo part); `||HOST^` alone: `HostPattern.onlyHostHead`, case-sensitive (`ruleURLFilter`)
//   `|`    `^` at the URL's start; a trailing `|` is `$`
//   `*`    `.*`
//   `^`    ABP's separator, any character but a letter, a digit and `_.%-`, or the URL's end: the class
//          `separatorClass` in the middle, `(separator.*)?$` at the end; right after the plain host of a `||`
//          pattern it is TriggerCondition.hostEnd, since a canonical http(s) or ws(s) URL always goes on with a
//          port or a path there
//   other  a literal (TDSConventions.regexLiteral)
// A `/regex/` is kept when WebKit's url-filter subset reads it (URLFilterParser), which matches as a JavaScript
// search does, and when its own automaton stays small (`regexStateBudget`); otherwise the filter is reported with
// the reason.

import AdblockSyntax
import ContentRules
import RuleCompiler
import TrackerData

enum PatternURLFilter {
    /// ABP's separator character. Both cases are written so that a case-insensitive url-filter, which adds the
    /// other case of every letter in a set, leaves letters out.
    static let separatorClass = "[^a-zA-Z0-9_.%-]"

    /// `||`: the scheme, then optionally a run ending in a dot before the host. Unlike TDSConventions.subdomainPrefix
    /// the run may hold ":": in a canonical URL a ":" before the path opens the port, which holds digits only and is
    /// followed by "/", so no dot can come after it, and the run matches the same. What it saves is WebKit's: every
    /// state of the host automaton needs no transition of its own for ":" (docs/filter-lists.md, "Cost").
    static let hostStart = HostPattern.subdomainHead

    /// A network rule's url-filter and whether it is case-sensitive. A `||HOST^` pattern alone is written with
    /// `HostPattern.onlyHostHead`, HOST lower-cased, case-sensitive: on a URL as WebKit serializes it (no `<` after
    /// `://`, the host of a special scheme lower-cased) it matches what `hostStart` + HOST + `[:/]` matches, but for
    /// an upper-case user name, which ABP never matches either, and an upper-case host of a custom scheme (kept as
    /// written: `app://ADS.example/`), which adblock-rust does not match either. What it saves is WebKit's
    /// (docs/filter-lists.md, "Host rules"): with the run covering every byte but `<`, a state of the host automaton
    /// has one fallback, and with one case per letter, WebKit's DFA minimization splits the alphabet into fewer
    /// ranges. Any other pattern: `urlFilter`.
    static func ruleURLFilter(
        _ pattern: FilterPattern, matchCase: Bool
    ) -> Result<(urlFilter: String, caseSensitive: Bool), FilterSyntaxError> {
        if case .plain(.host, let body, false) = pattern, let host = onlyHost(body, matchCase: matchCase) {
            return .success(
                (HostPattern.onlyHostHead + TDSConventions.regexLiteral(host) + TriggerCondition.hostEnd, true))
        }
        return urlFilter(pattern, caseSensitive: matchCase).map { ($0, matchCase) }
    }

    /// HOST, lower-cased, when `body` is HOST (host bytes) then one `^`; nil otherwise, and for an upper-case
    /// letter under $match-case (such a pattern matches no host).
    private static func onlyHost(_ body: String, matchCase: Bool) -> String? {
        let bytes = Array(body.utf8)
        guard bytes.count >= 2, bytes.last == UInt8(ascii: "^"), bytes.dropLast().allSatisfy(isHostByte) else {
            return nil
        }
        let host = bytes.dropLast()
        let lowered = host.map(WHATWGHost.lowercased)
        if matchCase && !lowered.elementsEqual(host) { return nil }
        return String(decoding: lowered, as: UTF8.self)
    }

    /// The url-filter of a pattern, or why it has none. A plain pattern's url-filter is in WebKit's subset by
    /// construction (the fuzz target checks it); a regex is checked.
    static func urlFilter(_ pattern: FilterPattern, caseSensitive: Bool) -> Result<String, FilterSyntaxError> {
        switch pattern {
        case .regex(let regex):
            let parsed = URLFilter.parse(regex, caseSensitive: caseSensitive)
            guard parsed.status.isSupported else {
                return .failure(
                    FilterSyntaxError(
                        message: "the regex is outside WebKit's url-filter subset: \(parsed.status.message)"))
            }
            if let why = catastrophic(parsed) { return .failure(why) }
            return .success(regex)
        case .plain(let start, let body, let endAnchored):
            guard body.utf8.allSatisfy({ $0 < 0x80 }) else {
                return .failure(FilterSyntaxError(message: "the pattern has non-ASCII characters"))
            }
            // A canonical URL has no space or control character: such a pattern matches nothing.
            guard body.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7F }) else {
                return .failure(
                    FilterSyntaxError(message: "the pattern has spaces or control characters, which no URL holds"))
            }
            return plain(start: start, body: Array(body.utf8), endAnchored: endAnchored)
        }
    }

    static func plain(
        start: FilterPattern.StartAnchor, body: [UInt8], endAnchored: Bool
    ) -> Result<String, FilterSyntaxError> {
        var tokens = body[...]
        // Leading and trailing wildcards add nothing to a search.
        if !endAnchored { while tokens.last == UInt8(ascii: "*") { tokens.removeLast() } }
        if start == .none { while tokens.first == UInt8(ascii: "*") { tokens.removeFirst() } }
        if tokens.count >= 2 && tokens.suffix(2).allSatisfy({ $0 == UInt8(ascii: "^") }) {
            return .failure(
                FilterSyntaxError(message: "a run of separators `^^` at the pattern's end (each may be the URL's end)"))
        }
        var out: String
        switch start {
        case .none: out = ""
        case .url: out = "^"
        case .host: out = hostStart
        }
        // The host of a `||` pattern, while it is only host characters.
        let hostLength =
            start == .host ? (tokens.firstIndex { !isHostByte($0) } ?? tokens.endIndex) - tokens.startIndex : 0
        var i = tokens.startIndex
        while i < tokens.endIndex {
            let byte = tokens[i]
            if byte != UInt8(ascii: "*") && byte != UInt8(ascii: "^") {
                // A run of literal bytes, escaped at once.
                var j = i
                while j < tokens.endIndex && tokens[j] != UInt8(ascii: "*") && tokens[j] != UInt8(ascii: "^") { j += 1 }
                out += TDSConventions.regexLiteral(String(decoding: tokens[i..<j], as: UTF8.self))
                i = j
                continue
            }
            let last = i == tokens.endIndex - 1
            if byte == UInt8(ascii: "*") {
                if !out.hasSuffix(".*") { out += ".*" }
            } else if hostLength > 0 && i - tokens.startIndex == hostLength {
                out += TriggerCondition.hostEnd
            } else if last && !endAnchored {
                return .success(out + "(" + separatorClass + ".*)?$")
            } else {
                out += separatorClass + (last ? "?" : "")
            }
            i += 1
        }
        if endAnchored { out += "$" }
        if out.isEmpty || out == "^" { out = ".*" }
        return .success(out)
    }

    /// DFA states one regex filter may need on its own. WebKit's compiler has no limit: a regex such as
    /// `[ab]*a[ab][ab]...` (2^n states) would stall the device's compile and fail radarblock's `match`, so the
    /// filter is reported. The regexes of EasyList and EasyPrivacy need at most a few hundred states.
    static let regexStateBudget = 20_000

    /// Why the regex's own automaton is too large for a content rule list, nil when it is not.
    static func catastrophic(_ filter: URLFilter) -> FilterSyntaxError? {
        var builder = MatcherBuilder(
            budget: CompileBudget(
                states: regexStateBudget, bytes: 64 << 20, totalStates: 4 * regexStateBudget, seconds: 5))
        builder.add(filter, id: 0)
        do {
            _ = try builder.buildWithinBudget()
            return nil
        } catch {
            return FilterSyntaxError(
                message: "the regex's automaton needs more than \(regexStateBudget) DFA states, which WebKit would"
                    + " build on the device")
        }
    }

    static func isHostByte(_ b: UInt8) -> Bool {
        (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || (b >= 0x30 && b <= 0x39) || b == 0x2D || b == 0x2E
            || b == 0x5F
    }
}

extension FilterPattern {
    var isRegex: Bool {
        if case .regex = self { return true }
        return false
    }
}
