// WebKit accepts fewer than 150,000 rules per list (older Safari: 50,000). A larger conversion is split
// into several lists by tracker, never by index: WebKit evaluates each list on its own and a block in
// any list blocks, so every rule that can decide a request for some host must stay in one list with the
// rules it interacts with. Rules are grouped by unit (ListUnit: the registrable domain of the outermost scope
// above the host they target, so a subdomain tracker's resets stay with its parent tracker's blocks), and the
// rules that are not about one tracker (privacy-config exceptions, user allowlist, top-level protections) are
// repeated in every part, in their original relative order, so that each part is correct on its own.
//
// A list written with an exemption per leading entity (`SameEntityEncoding.entityLists`) is always split at them:
// each entity after the first gets a list of its own, its trackers, its shared exemption, the later rules of the same
// units and every rule of no unit but the shared exemptions; the rest is split by size as before.

import ContentRules
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
    public static func split(rules: [ContentRule], provenance: [RuleProvenance], maxRules: Int) throws -> [RuleListPart]
    {
        precondition(rules.count == provenance.count)
        let entities = try EntitySegments(rules, provenance)
        guard !entities.parts.isEmpty else { return try pack(rules: rules, provenance: provenance, maxRules: maxRules) }
        let rest = entities.main.map { (rules[$0], provenance[$0]) }
        var parts = try pack(rules: rest.map(\.0), provenance: rest.map(\.1), maxRules: maxRules)
        for (indices, units) in entities.parts {
            guard indices.count <= maxRules else {
                let entity = indices.lazy.compactMap { provenance[$0].entity }.first ?? "?"
                throw SplitError(
                    description:
                        "the list of entity \(entity) has \(indices.count) rules, over the limit of \(maxRules) rules "
                        + "per list")
            }
            parts.append(
                RuleListPart(rules: indices.map { rules[$0] }, provenance: indices.map { provenance[$0] }, units: units)
            )
        }
        return parts
    }

    /// Splits by size only: units packed greedily, the rules of no unit repeated in every part.
    static func pack(rules: [ContentRule], provenance: [RuleProvenance], maxRules: Int) throws -> [RuleListPart] {
        if rules.count <= maxRules {
            return [RuleListPart(rules: rules, provenance: provenance, units: [])]
        }
        let grouping = ListUnit.Grouping(provenance)
        var unitOrder: [String] = []
        var unitSizes: [String: Int] = [:]
        var units: [String?] = []
        units.reserveCapacity(rules.count)
        var globalCount = 0
        for p in provenance {
            let u = grouping.unit(of: p)
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

/// Which rules of a list go to the list of a leading entity after the first (SharedEntityExemption.swift): the
/// segment that its shared exemption ends, the later rules of the units in that segment, every rule of no unit that
/// is not a shared exemption, and the request blocklist's resets: a blocklist rule names URLs, not a tracker's hosts,
/// so its resets (a top-level navigation, a site it cannot except) also cancel the entity's blocks. A tracker
/// allowlist rule matches only requests to hosts under its tracker's domain, which only rules of a scope nested with
/// it (and rules of no scope) can block: it goes to the lists holding such a rule. `main` holds the rest, in order,
/// and every allowlist rule (the request blocklist's blocks stay there).
struct EntitySegments {
    var main: [Int] = []
    var parts: [(indices: [Int], units: [String])] = []

    init(_ rules: [ContentRule], _ provenance: [RuleProvenance]) throws {
        let ends = provenance.indices.filter { provenance[$0].isSharedEntityExemption }
        guard ends.count > 1 else {
            main = Array(provenance.indices)
            return
        }
        let grouping = ListUnit.Grouping(provenance)
        var partOfUnit: [String: Int] = [:]
        var owner = [Int?](repeating: nil, count: provenance.count)
        for k in 1..<ends.count {
            var units: [String] = []
            for i in (ends[k - 1] + 1)...ends[k] {
                owner[i] = k - 1
                if i == ends[k] { continue }
                guard let u = grouping.unit(of: provenance[i]) else {
                    throw SplitError(
                        description: "rule \(i) (\(provenance[i])) of an entity's segment is of no tracker")
                }
                if partOfUnit.updateValue(k - 1, forKey: u) == nil { units.append(u) }
            }
            parts.append(([], units))
        }
        try Self.checkFirstSegment(provenance, grouping, end: ends[0], partOfUnit: partOfUnit)
        var scopes = [PartScopes](repeating: PartScopes(), count: parts.count)
        for i in provenance.indices {
            let unit = grouping.unit(of: provenance[i])
            if let k = owner[i] ?? unit.flatMap({ partOfUnit[$0] }) {
                parts[k].indices.append(i)
                scopes[k].add(rules[i], provenance[i])
            } else if let allowlisted = ListUnit.allowlisted(provenance[i]) {
                main.append(i)
                for k in parts.indices where scopes[k].mayBlock(nestedWith: allowlisted) { parts[k].indices.append(i) }
            } else if Self.isRepeated(rules[i], provenance[i], unit: unit) {
                main.append(i)
                for k in parts.indices {
                    parts[k].indices.append(i)
                    scopes[k].add(rules[i], provenance[i])
                }
            } else {
                main.append(i)
            }
        }
    }

    /// What an entity's list can block: the host scopes of its tracker rules, and whether it holds a block of no
    /// scope.
    private struct PartScopes {
        var scopes = ListUnit.Scopes()
        var blocksOfNoScope = false

        mutating func add(_ rule: ContentRule, _ p: RuleProvenance) {
            guard let scope = ListUnit.scope(p) else {
                if rule.action != .ignorePreviousRules { blocksOfNoScope = true }
                return
            }
            scopes.insert(scope)
        }

        /// Whether a rule of this list can block a request to a host under `domain` (a scope nested with it).
        func mayBlock(nestedWith domain: String) -> Bool { blocksOfNoScope || scopes.nestsWithAny(domain) }
    }

    /// Whether every entity's list repeats the rule (after its own rules, as in the whole list).
    private static func isRepeated(_ rule: ContentRule, _ p: RuleProvenance, unit: String?) -> Bool {
        if p.source == .requestBlocklist { return rule.action == .ignorePreviousRules }
        return unit == nil && !p.isSharedEntityExemption
    }

    /// The first entity stays in the main list: none of its units may be another entity's.
    private static func checkFirstSegment(
        _ provenance: [RuleProvenance], _ grouping: ListUnit.Grouping, end: Int, partOfUnit: [String: Int]
    ) throws {
        for i in 0..<end {
            guard let u = grouping.unit(of: provenance[i]), partOfUnit[u] != nil else { continue }
            throw SplitError(description: "\(u) has trackers of two leading entities; they cannot be split apart")
        }
    }
}
