// The flips of a diff as a person reviews them: per entity and per tracker, how many requests became blocked,
// became allowed or changed surrogate, with a few examples per tracker. Every flip counts once, under the
// tracker that decided it (the deciding rule's provenance, new side first) or, for a flip no TDS rule decided,
// the tracker the datasets give its URL's host.

import RuleEngine
import StrictJSON
import TrackerData

/// Which tracker and entity a flip belongs to, from the deciding rules and both sides' datasets.
public struct FlipAttribution: Sendable {
    /// The new side's dataset first: a tracker present on both is named as it is now.
    let datasets: [TrackerDataSet]

    public init(datasets: [TrackerDataSet]) { self.datasets = datasets }

    /// What a flip is not attributed to when nothing names it.
    public static let noEntity = "(no entity)"

    public func tracker(of c: DecisionChange) -> String {
        for d in [c.new, c.old] {
            if let t = d.rule?.tracker { return t }
        }
        guard let host = CanonicalURL.parse(c.request.url)?.host, !host.isEmpty else { return c.request.url }
        for tds in datasets {
            if let t = tds.findTracker(forHost: tds.uncloak(host: host)) { return t.domain }
        }
        return host
    }

    public func entity(ofTracker domain: String) -> String {
        for tds in datasets {
            if let name = tds.trackers[domain]?.owner?.name ?? tds.entityName(ofHost: domain) { return name }
        }
        return Self.noEntity
    }
}

/// Flip counts by kind.
public struct FlipCounts: Sendable, Equatable {
    /// Allowed before, blocked (or replaced by a surrogate) now.
    public var newlyBlocked = 0
    /// Blocked (or replaced by a surrogate) before, allowed now.
    public var newlyAllowed = 0
    /// Blocked on both sides, with another surrogate (or none) now.
    public var surrogateChanged = 0
    public var total: Int { newlyBlocked + newlyAllowed + surrogateChanged }

    public init() {}

    mutating func add(_ c: DecisionChange) {
        switch (c.old.outcome == .allowed, c.new.outcome == .allowed) {
        case (true, false): newlyBlocked += 1
        case (false, true): newlyAllowed += 1
        default: surrogateChanged += 1
        }
    }

    public var jsonMembers: [(String, JSONValue)] {
        [
            ("newlyBlocked", .number(Double(newlyBlocked))), ("newlyAllowed", .number(Double(newlyAllowed))),
            ("surrogateChanged", .number(Double(surrogateChanged))), ("flips", .number(Double(total))),
        ]
    }
}

public struct FlipSummary: Sendable {
    public struct Group: Sendable {
        public var name: String
        /// The tracker's entity (trackers only).
        public var entity: String?
        public var counts = FlipCounts()
        /// The first flips of the group, in corpus order.
        public var examples: [DecisionChange] = []
    }

    public var all = FlipCounts()
    /// Largest first (ties by name, bytewise): the order every format lists them in.
    public var entities: [Group] = []
    public var trackers: [Group] = []

    /// Examples kept per tracker.
    public static let examplesPerTracker = 3

    /// One pass over the flips (a page at a time).
    public static func make(_ flips: FlipLog, attribution: FlipAttribution) throws -> FlipSummary {
        var summary = FlipSummary()
        var trackers: [String: Group] = [:], entities: [String: Group] = [:]
        try flips.forEachPage { page in
            for c in page.changes {
                let tracker = attribution.tracker(of: c)
                let entity = trackers[tracker]?.entity ?? attribution.entity(ofTracker: tracker)
                trackers[tracker, default: Group(name: tracker, entity: entity)].counts.add(c)
                if trackers[tracker]!.examples.count < examplesPerTracker { trackers[tracker]!.examples.append(c) }
                entities[entity, default: Group(name: entity)].counts.add(c)
                summary.all.add(c)
            }
        }
        func ranked(_ groups: [String: Group]) -> [Group] {
            groups.values.sorted {
                $0.counts.total != $1.counts.total ? $0.counts.total > $1.counts.total : byteOrder($0.name, $1.name)
            }
        }
        summary.entities = ranked(entities)
        summary.trackers = ranked(trackers)
        return summary
    }

    /// "summary" of the JSON report: every entity and tracker with its counts (examples are in "requests").
    public var jsonValue: JSONValue {
        func group(_ g: Group, key: String) -> JSONValue {
            var members: [(String, JSONValue)] = [(key, .string(g.name))]
            if let e = g.entity { members.append(("entity", .string(e))) }
            return .object(JSONObject(members + g.counts.jsonMembers))
        }
        return .object(
            JSONObject(
                all.jsonMembers + [
                    ("entities", .array(entities.map { group($0, key: "entity") })),
                    ("trackers", .array(trackers.map { group($0, key: "tracker") })),
                ]))
    }
}
