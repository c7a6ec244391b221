// Keeping TDS rule regexes inside WebKit's url-filter subset. WebKit's own verdict on a filter is given to
// the generator (`FilterCheck`, WebKit's parser in production) rather than linked in, so the generator
// depends on the data model only. The rule builder anchors every TDS rule as
// `^[^:]+://+([^:/]+\.)?` + rule (TDSConventions.subdomainPrefix), so that whole string is what WebKit
// compiles. A rule it rejects is rewritten only when an equivalent form exists; otherwise it is dropped and
// reported with WebKit's reason.

import TrackerData

public enum RuleRegex {
    /// The anchor the rule builder puts in front of a TDS rule (TrackerRadarKit since PR #34).
    static let subdomainPrefix = TDSConventions.subdomainPrefix

    /// What WebKit says of a whole url-filter: it compiles, it would match every URL, or it is rejected (WebKit's
    /// message).
    public enum FilterVerdict: Sendable, Hashable {
        case ok
        case matchesEverything(String)
        case rejected(String)
    }
    /// WebKit's url-filter parser (case-insensitive), as a function.
    public typealias FilterCheck = @Sendable (String) -> FilterVerdict

    public enum Verdict: Sendable, Hashable {
        /// Usable as is.
        case ok
        /// Not usable as is; these equivalent rules are (one rule, or one per alternative of a disjunction).
        case rewritten([String], reason: String)
        /// Not usable; WebKit's message (or ours) says why.
        case rejected(String)
    }

    /// Checks `rule` as WebKit would compile it. `domain` is the tracker the rule belongs to: a rule that does not
    /// start with that domain can never match a request that TDS matching attributes to this tracker.
    public static func check(_ rule: String, domain: String, webKit: FilterCheck) -> Verdict {
        if rule.isEmpty { return .rejected("empty rule") }
        var verdict: Verdict
        switch webKit(subdomainPrefix + rule) {
        case .ok:
            verdict = .ok
        case .matchesEverything(let message):
            return .rejected("WebKit: \(message) (the rule would block every URL)")
        case .rejected(let message):
            guard let rewrites = rewrite(rule), rewrites.allSatisfy({ webKit(subdomainPrefix + $0) == .ok })
            else { return .rejected("WebKit: \(message)") }
            verdict = .rewritten(rewrites, reason: "WebKit: \(message)")
        }
        let prefix = TDSConventions.escapedDomain(domain)
        let candidates: [String]
        switch verdict {
        case .ok: candidates = [rule]
        case .rewritten(let r, _): candidates = r
        case .rejected: candidates = []
        }
        for c in candidates where !startsWithDomain(c, escaped: prefix, plain: domain) {
            return .rejected(
                "rule does not start with the tracker domain \(domain) (\(prefix)), so it can never match a request to "
                    + "this tracker"
            )
        }
        return verdict
    }

    static func startsWithDomain(_ rule: String, escaped: String, plain: String) -> Bool {
        // Either escaping of "/" is common in the TDS ("a\.com/x" and "a\.com\/x"); the domain part itself must be
        // escaped (an unescaped "." would also match other hosts, but still starts with the domain).
        rule.hasPrefix(escaped) || rule.hasPrefix(plain)
    }

    /// Equivalent rewrites for constructs WebKit rejects: builtin classes `\d` `\w` (as explicit sets) and a single
    /// top-level group of plain alternatives `x(a|b)y` (as one rule per alternative: TDS rules are tried in order and
    /// the alternatives carry the same attributes, so the first-match result is the same). nil: no safe rewrite.
    static func rewrite(_ rule: String) -> [String]? {
        var s = ""
        var chars = Array(rule)
        var i = 0
        var changed = false
        while i < chars.count {
            let c = chars[i]
            if c == "\\", i + 1 < chars.count {
                let n = chars[i + 1]
                switch n {
                case "d": s += "[0-9]"; changed = true
                case "w": s += "[A-Za-z0-9_]"; changed = true
                default: s.append(c); s.append(n)
                }
                i += 2
                continue
            }
            s.append(c)
            i += 1
        }
        chars = Array(s)
        // One group, no nesting, alternatives made of literal text only.
        let opens = chars.indices.filter { chars[$0] == "(" && !isEscaped(chars, $0) }
        let closes = chars.indices.filter { chars[$0] == ")" && !isEscaped(chars, $0) }
        if opens.count == 1, closes.count == 1, opens[0] < closes[0] {
            let inner = String(chars[(opens[0] + 1)..<closes[0]])
            let after = closes[0] + 1 < chars.count ? chars[closes[0] + 1] : nil
            if after == nil || !["*", "+", "?", "{"].contains(after!), inner.contains("|"), !inner.hasPrefix("?") {
                let head = String(chars[..<opens[0]])
                let tail = String(chars[(closes[0] + 1)...])
                let alternatives = splitAlternatives(inner)
                if alternatives.allSatisfy({ !$0.isEmpty }) {
                    return alternatives.map { head + $0 + tail }
                }
            }
        }
        return changed ? [s] : nil
    }

    static func isEscaped(_ chars: [Character], _ index: Int) -> Bool {
        var n = 0
        var j = index - 1
        while j >= 0, chars[j] == "\\" { n += 1; j -= 1 }
        return n % 2 == 1
    }

    static func splitAlternatives(_ s: String) -> [String] {
        let chars = Array(s)
        var parts: [String] = []
        var current = ""
        for (i, c) in chars.enumerated() {
            if c == "|", !isEscaped(chars, i) { parts.append(current); current = ""; continue }
            current.append(c)
        }
        parts.append(current)
        return parts
    }

    /// The order rules are written in: most specific first. Specificity = number of literal characters the
    /// regex requires (an escape `\x` or a class `[...]` is one character; `.`, quantified atoms and anchors
    /// count zero), then the longer pattern, then byte order, so the order is total and deterministic.
    public static func specificity(_ rule: String) -> Int {
        let chars = Array(rule)
        var count = 0
        var i = 0
        while i < chars.count {
            var atomIsLiteral = true
            let c = chars[i]
            if c == "\\" {
                i += 2
            } else if c == "[" {
                var j = i + 1
                while j < chars.count, chars[j] != "]" || isEscaped(chars, j) { j += 1 }
                i = j + 1
            } else if c == "." || c == "^" || c == "$" || c == "(" || c == ")" || c == "|" {
                atomIsLiteral = false
                i += 1
            } else {
                i += 1
            }
            if i < chars.count, ["*", "?"].contains(chars[i]) {
                atomIsLiteral = false
                i += 1
            } else if i < chars.count, chars[i] == "+" {
                i += 1
            }
            if atomIsLiteral { count += 1 }
        }
        return count
    }

    public static func moreSpecific(_ a: String, _ b: String) -> Bool {
        let sa = specificity(a), sb = specificity(b)
        if sa != sb { return sa > sb }
        if a.utf8.count != b.utf8.count { return a.utf8.count > b.utf8.count }
        return a.utf8.lexicographicallyPrecedes(b.utf8)
    }
}
