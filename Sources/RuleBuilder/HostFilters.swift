// url-filters that apply a TDS rule regex (or an allowlist entry) only to the hosts it is meant for.
//
// TDS semantics (README.md, Conversion modes): the request host selects the tracker T (longest suffix; for a CNAME
// alias, the
// tracker of the cloaked target), then T's rule regexes are searched anywhere in the URL with the port removed.
// A regex R is split into its host part H (the terms before the first "/") and the rest P. Two url-filters
// together cover every match that matters (FilterForm.swift holds them by their pieces; `port` stands for
// TDSConventions.optionalPort, `end` for TriggerCondition.hostEnd):
//   host form:    H aligned with the end of the request host, then an optional port, then P
//                 ^[^:]+://+([^:/]+\.)?T port P        (H names T itself or a parent of it)
//                 ^[^:]+://+[^:/]*Y\.T port P          (H = Y.T: a subdomain part, matched from any position)
//                 ^[^:]+://+A port P                   (CNAME alias A whose target's tail H matches)
//   in-URL form:  R anywhere after the request host
//                 ^[^:]+://+([^:/]+\.)?T end .*R       (or ^[^:]+://+A end .*R for an alias)
// Both forms keep the host inside T's scope, so a rule never fires for a host that belongs to no tracker or to
// another one. Matches not covered: R starting inside the host without its host part ending at the host's end
// (only possible for a rule without a path, or one whose host part is not a plain host name).

import ContentRules
import Provenance
import TrackerData

enum HostScope: Hashable {
    /// Hosts under a tracker (or allowlist) domain.
    case domain(String)
    /// Exactly one CNAME alias host; rules are evaluated as if the host were `target`.
    case alias(String, target: String)

    static let schemePrefix = TDSConventions.schemePrefix
    static let subdomainPrefix = TDSConventions.subdomainPrefix

    /// Scheme, subdomains and a host in scope, up to the end of the host.
    var hostPrefix: String {
        switch self {
        case .domain(let d): return Self.subdomainPrefix + RegexText.escapeHost(d)
        case .alias(let a, _): return Self.schemePrefix + RegexText.escapeHost(a)
        }
    }

    /// Every URL whose host is in scope (the domain-wide rule).
    var hostFilter: String { hostPrefix + TriggerCondition.hostEnd }
}

enum HostAtom: Equatable {
    case literal(UInt8)
    case any

    func matches(_ b: UInt8) -> Bool {
        switch self {
        case .any: return true
        case .literal(let l): return lower(l) == lower(b)
        }
    }
}

@inline(__always) func lower(_ b: UInt8) -> UInt8 { b >= 65 && b <= 90 ? b + 32 : b }

enum HostSplit {
    /// The host part of an alternative, when it is a plain host name (letters, digits, "-", "_", "." and `.`-any),
    /// and the rest (starting with "/"; empty when the regex has no path).
    static func split(_ alt: [WKTerm]) -> (host: [HostAtom], rest: [WKTerm])? {
        var atoms: [HostAtom] = []
        var i = 0
        while i < alt.count {
            guard case .set(let s, .one) = alt[i] else { return nil }
            let m = s.members
            if m.count == 1 {
                let b = m[0]
                if b == UInt8(ascii: "/") { break }
                guard isHostByte(b) else { return nil }
                atoms.append(.literal(b))
            } else if m.count == 2, lower(m[0]) == lower(m[1]), isHostByte(m[0]) {
                atoms.append(.literal(lower(m[0])))
            } else if s.isAnyURLCharacter {
                atoms.append(.any) // `.` (JavaScript's any-but-newline)
            } else {
                return nil
            }
            i += 1
        }
        guard !atoms.isEmpty else { return nil }
        return (atoms, Array(alt[i...]))
    }

    static func isHostByte(_ b: UInt8) -> Bool {
        let l = lower(b)
        return (l >= UInt8(ascii: "a") && l <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9"))
            || b == UInt8(ascii: "-") || b == UInt8(ascii: "_") || b == UInt8(ascii: ".")
    }

    static func render(_ atoms: ArraySlice<HostAtom>) -> String {
        var out = ""
        for a in atoms {
            switch a {
            case .any: out += "."
            case .literal(let b): out += RegexTranslator.escapeOutside(b)
            }
        }
        return out
    }

    /// Does `atoms` match `text` exactly (same length)?
    static func matches(_ atoms: ArraySlice<HostAtom>, _ text: ArraySlice<UInt8>) -> Bool {
        atoms.count == text.count && zip(atoms, text).allSatisfy { $0.matches($1) }
    }

    /// The host form's X (see the file comment): what precedes the port and path, or nil when the host part cannot
    /// match the end of a host in scope.
    static func hostFormPrefix(_ atoms: [HostAtom], scope: HostScope) -> String? {
        switch scope {
        case .domain(let d):
            let t = Array(d.utf8)
            let n = atoms.count, m = t.count
            if n <= m {
                guard matches(atoms[...], t[(m - n)...]) else { return nil }
                return scope.hostPrefix
            }
            guard matches(atoms[(n - m)...], t[...]), atoms[n - m - 1].matches(UInt8(ascii: ".")) else { return nil }
            let y = atoms[..<(n - m - 1)]
            return HostScope.schemePrefix + "[^:/]*" + render(y) + "\\." + RegexText.escapeHost(d)
        case .alias(_, let target):
            let x = Array(target.utf8)
            guard atoms.count <= x.count, matches(atoms[...], x[(x.count - atoms.count)...]) else { return nil }
            return scope.hostPrefix
        }
    }
}
