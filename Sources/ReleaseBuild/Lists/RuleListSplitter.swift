// WebKit accepts fewer than 150,000 rules per list (older Safari: 50,000). A larger conversion is split
// into several lists by tracker, never by index: WebKit evaluates each list on its own and a block in
// any list blocks, so every rule that can decide a request for some host must stay in one list with the
// rules it interacts with. Rules are grouped by the registrable domain of the host they target (a
// subdomain tracker's resets stay with its parent tracker's blocks), and the rules that are not about one
// tracker (privacy-config exceptions, user allowlist, top-level protections) are repeated in every part,
// in their original relative order, so that each part is correct on its own.

import ContentRules
import Domains
import Provenance
import RuleBuilder

public struct RuleListPart: Sendable {
    public var rules: [ContentRule]
    public var provenance: [RuleProvenance]
    /// Units (registrable domains) whose rules this part carries.
    public var units: [String]
}

public struct SplitError: Error, CustomStringConvertible {
    public let description: String
}

public enum RuleListSplitter {
    /// The unit a rule belongs to, or nil for rules that every part must carry.
    static func unit(of p: RuleProvenance) -> String? {
        switch p.source {
        case .tds:
            guard let host = p.cnameAlias ?? p.tracker else { return nil }
            return PublicSuffixList.shared.registrableDomain(host) ?? host
        case .requestBlocklist:
            return p.tracker.map { "requestBlocklist/" + $0 }
        case .adClickAttribution:
            guard let host = p.cnameAlias ?? p.tracker else { return nil }
            return PublicSuffixList.shared.registrableDomain(host) ?? host
        case .tempList, .userUnprotected, .allowlist, .topLevel, .featureState, .clickToLoad, .cookiePopups,
            .filterList:
            return nil
        }
    }

    public static func split(rules: [ContentRule], provenance: [RuleProvenance], maxRules: Int) throws -> [RuleListPart]
    {
        precondition(rules.count == provenance.count)
        if rules.count <= maxRules {
            return [RuleListPart(rules: rules, provenance: provenance, units: [])]
        }
        var unitOrder: [String] = []
        var unitSizes: [String: Int] = [:]
        var units: [String?] = []
        units.reserveCapacity(rules.count)
        var globalCount = 0
        for p in provenance {
            let u = unit(of: p)
            units.append(u)
            if let u {
                if unitSizes[u] == nil { unitOrder.append(u) }
                unitSizes[u, default: 0] += 1
            } else {
                globalCount += 1
            }
        }
        let capacity = maxRules - globalCount
        guard capacity > 0 else {
            throw SplitError(
                description: "the \(globalCount) exception rules alone reach the limit of \(maxRules) rules per list")
        }
        // Greedy packing in first-appearance order keeps the parts stable from one release to the next.
        var partOf: [String: Int] = [:]
        var partUnits: [[String]] = [[]]
        var fill = 0
        for u in unitOrder {
            let size = unitSizes[u]!
            guard size <= capacity else {
                throw SplitError(
                    description:
                        "the rules for \(u) (\(size)) do not fit in one list of \(maxRules) rules "
                        + "with the \(globalCount) exception rules"
                )
            }
            if fill + size > capacity {
                partUnits.append([])
                fill = 0
            }
            partOf[u] = partUnits.count - 1
            partUnits[partUnits.count - 1].append(u)
            fill += size
        }
        var parts = partUnits.map { RuleListPart(rules: [], provenance: [], units: $0) }
        for i in rules.indices {
            if let u = units[i] {
                let p = partOf[u]!
                parts[p].rules.append(rules[i])
                parts[p].provenance.append(provenance[i])
            } else {
                for p in parts.indices {
                    parts[p].rules.append(rules[i])
                    parts[p].provenance.append(provenance[i])
                }
            }
        }
        return parts
    }
}
