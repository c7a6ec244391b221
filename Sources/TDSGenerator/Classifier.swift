// The policy as a function: one radar domain (plus its owner's entity) -> tracker or not, and `default`.
// Every step that decides records a `Reason`, so that `--explain` and the agreement report can say which
// field and which threshold made the decision.

import Domains
import Foundation
import TrackerData

public struct ClassificationStep: Sendable, Hashable, CustomStringConvertible {
    /// Short machine name of the rule that applied, e.g. "fewResources" (used to group disagreements).
    public var rule: String
    /// What the data said and what the policy requires.
    public var detail: String
    public var description: String { "\(rule): \(detail)" }
}

public struct Classification: Sendable, Hashable {
    /// nil: not a tracker.
    public var defaultAction: DefaultAction?
    /// The step that made the final decision (the last entry of `steps`).
    public var decidedBy: String { steps.last?.rule ?? "" }
    /// Every check in order, passed or failed, so an explanation reads top to bottom.
    public var steps: [ClassificationStep]
    public var isTracker: Bool { defaultAction != nil }
}

public enum TrackerClassifier {
    /// The entity files by name, as owners are looked up (of two with one name, the later wins).
    public static func entitiesByName(_ entities: [RadarEntity]) -> [String: RadarEntity] {
        Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { _, b in b })
    }

    /// `classify` with the domain's owner looked up in `entities` (`entitiesByName`), as `radarblock tds` runs it.
    public static func classify(_ d: RadarDomain, entities: [String: RadarEntity], policy: TDSPolicy) -> Classification
    {
        classify(d, entity: d.owner.flatMap { entities[$0.name] }, policy: policy)
    }

    public static func classify(_ d: RadarDomain, entity: RadarEntity?, policy p: TDSPolicy) -> Classification {
        var steps: [ClassificationStep] = []
        func done(_ action: DefaultAction?, _ rule: String, _ detail: String) -> Classification {
            steps.append(ClassificationStep(rule: rule, detail: detail))
            return Classification(defaultAction: action, steps: steps)
        }
        func note(_ rule: String, _ detail: String) { steps.append(ClassificationStep(rule: rule, detail: detail)) }

        if p.excludeIPAddresses, Host.isIPAddress(d.domain) {
            return done(nil, "ipAddress", "\(d.domain) is an IP address; excludeIPAddresses is on")
        }
        let breakage = d.categories.filter { p.breakageProneCategories.contains($0) }.sorted(by: byteOrder)
        if !breakage.isEmpty, d.fingerprinting < p.breakageProneMinFingerprinting {
            return done(
                nil, "breakageProneCategory",
                "categories \(breakage.joined(separator: ", ")) are breakage-prone and fingerprinting "
                    + "\(d.fingerprinting) < breakageProneMinFingerprinting \(p.breakageProneMinFingerprinting)"
            )
        }
        if d.sites < p.minSites {
            return done(nil, "minSites", "seen on \(d.sites) sites < minSites \(p.minSites)")
        }
        note("minSites", "seen on \(d.sites) sites >= minSites \(p.minSites)")

        if let (step, stops) = ownerShareStep(entity, policy: p) {
            if stops { return done(nil, step.rule, step.detail) }
            note(step.rule, step.detail)
        }

        let evidence = trackingEvidence(d, policy: p)
        let tracking = d.categories.filter { p.trackingCategories.contains($0) }
        if evidence.isEmpty {
            let (action, step) = withoutEvidence(d, policy: p, tracking: tracking)
            return done(action, step.rule, step.detail)
        }
        note("evidence", evidence.joined(separator: "; "))
        if !tracking.isEmpty {
            note("categories", "tracking categories: \(tracking.sorted(by: byteOrder).joined(separator: ", "))")
        }
        if let entity, p.minOwnerTrackingShare == nil {
            note(
                "entity",
                "owner \(entity.name): tracking prevalence \(fmt(entity.prevalence.tracking)) of total "
                    + "\(fmt(entity.prevalence.total))"
            )
        }

        if !breakage.isEmpty {
            return done(
                .ignore, "breakageProneCategory",
                "categories \(breakage.joined(separator: ", ")) are breakage-prone: listed (fingerprinting "
                    + "\(d.fingerprinting) >= \(p.breakageProneMinFingerprinting)) but never blocked by default"
            )
        }
        let (action, step) = resourceVerdict(d, policy: p)
        return done(action, step.rule, step.detail)
    }
}

extension TrackerClassifier {
    /// The owner's own tracking share (entity file): the radar's verdict over all of the owner's domains. nil when
    /// the policy or the entity leaves it out; `stops` when the share is below the policy's minimum.
    static func ownerShareStep(_ entity: RadarEntity?, policy p: TDSPolicy) -> (step: ClassificationStep, stops: Bool)?
    {
        guard let minShare = p.minOwnerTrackingShare, let entity else { return nil }
        let e = entity.prevalence
        guard e.total > 0 else {
            let detail = "owner \(entity.name) has entity prevalence.total 0: minOwnerTrackingShare not applied"
            return (ClassificationStep(rule: "ownerTracking", detail: detail), false)
        }
        let share = e.tracking / e.total
        if share < minShare {
            let detail =
                "owner \(entity.name) is tracking on \(fmt(e.tracking)) of the \(fmt(e.total)) share of sites "
                + "where its domains appear (\(pct(share))) < minOwnerTrackingShare \(pct(minShare))"
            return (ClassificationStep(rule: "ownerNotTracking", detail: detail), true)
        }
        let detail =
            "owner \(entity.name) is tracking on \(pct(share)) of the sites where its domains appear >= "
            + "minOwnerTrackingShare \(pct(minShare))"
        return (ClassificationStep(rule: "ownerTracking", detail: detail), false)
    }

    /// The verdict for a domain without tracking evidence: listed but not blocked when prevalent enough, else none.
    static func withoutEvidence(_ d: RadarDomain, policy p: TDSPolicy, tracking: [String])
        -> (DefaultAction?, ClassificationStep)
    {
        let beacons = d.types["Ping"] ?? 0
        let why =
            "no tracking evidence (fingerprinting \(d.fingerprinting) < \(p.minFingerprinting), cookies "
            + "\(fmt(d.cookies)) < \(fmt(p.minCookies))"
            + (p.minBeaconSites.map { ", beacons on \(beacons) sites < \($0)" } ?? "") + ")"
            + (tracking.isEmpty ? "" : "; tracking categories alone do not count")
        if let observed = p.observedMinPrevalence, d.prevalence >= observed {
            let detail =
                why + "; prevalence \(fmt(d.prevalence)) >= observedMinPrevalence \(fmt(observed)): listed, not "
                + "blocked"
            return (.ignore, ClassificationStep(rule: "observedOnly", detail: detail))
        }
        let tier =
            p.observedMinPrevalence.map { "; prevalence \(fmt(d.prevalence)) < observedMinPrevalence \(fmt($0))" } ?? ""
        return (nil, ClassificationStep(rule: "noEvidence", detail: why + tier))
    }

    /// The default action of a tracker by its number of resource patterns.
    static func resourceVerdict(_ d: RadarDomain, policy p: TDSPolicy) -> (DefaultAction?, ClassificationStep) {
        let patterns = d.resources.count
        if patterns >= p.blockMinResources {
            let detail = "\(patterns) resource patterns >= blockMinResources \(p.blockMinResources): default block"
            return (.block, ClassificationStep(rule: "manyResources", detail: detail))
        }
        let detail =
            "\(patterns) resource patterns < blockMinResources \(p.blockMinResources): default ignore, tracking "
            + "resources become rules"
        return (.ignore, ClassificationStep(rule: "fewResources", detail: detail))
    }

    /// What counts as tracking evidence under the policy, one message per piece (empty: none).
    static func trackingEvidence(_ d: RadarDomain, policy p: TDSPolicy) -> [String] {
        var evidence: [String] = []
        if d.fingerprinting > 0, d.fingerprinting >= p.minFingerprinting {
            evidence.append("fingerprinting \(d.fingerprinting) >= minFingerprinting \(p.minFingerprinting)")
        }
        if d.cookies >= p.minCookies, d.cookies > 0 {
            evidence.append("cookies \(fmt(d.cookies)) >= minCookies \(fmt(p.minCookies))")
        }
        let beacons = d.types["Ping"] ?? 0
        if let minBeacons = p.minBeaconSites, beacons >= minBeacons {
            evidence.append("beacons (Ping) on \(beacons) sites >= minBeaconSites \(minBeacons)")
        }
        return evidence
    }
}

/// A share as a percentage with one decimal, for messages.
func pct(_ d: Double) -> String { String(format: "%.1f%%", d * 100) }

/// Numbers as the radar writes them (no exponent for ordinary shares), for messages.
func fmt(_ d: Double) -> String {
    if d == d.rounded(), abs(d) < 1e15 { return String(Int(d)) }
    var s = String(format: "%.8f", d)
    while s.hasSuffix("0") { s.removeLast() }
    if s.hasSuffix(".") { s.removeLast() }
    return s
}
