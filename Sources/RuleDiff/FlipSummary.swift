// The flips of a diff as a person reviews them: per entity and per tracker, how many requests became blocked,
// became allowed or changed surrogate, with a few examples per tracker. Every flip counts once, under the
// tracker that decided it (the deciding rule's provenance, new side first) or, for a flip no TDS rule decided,
// the tracker the datasets give its URL's host. Beside each count, the distinct URLs and pages it covers.

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
        // Not a loop over [c.new, c.old]: that array was made (and both decisions copied) for every flip.
        if let t = c.new.rule?.tracker ?? c.old.rule?.tracker { return t }
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

/// Which way a flip went.
public enum FlipKind: Sendable, CaseIterable {
    /// Allowed before, blocked (or replaced by a surrogate) now.
    case newlyBlocked
    /// Blocked (or replaced by a surrogate) before, allowed now.
    case newlyAllowed
    /// Blocked on both sides, with another surrogate (or none) now.
    case surrogateChanged

    public init(_ c: DecisionChange) {
        switch (c.old.outcome == .allowed, c.new.outcome == .allowed) {
        case (true, false): self = .newlyBlocked
        case (false, true): self = .newlyAllowed
        default: self = .surrogateChanged
        }
    }
}

/// Flip counts by kind.
public struct FlipCounts: Sendable, Equatable {
    public var newlyBlocked = 0
    public var newlyAllowed = 0
    public var surrogateChanged = 0
    public var total: Int { newlyBlocked + newlyAllowed + surrogateChanged }

    public init() {}

    mutating func add(_ kind: FlipKind) {
        switch kind {
        case .newlyBlocked: newlyBlocked += 1
        case .newlyAllowed: newlyAllowed += 1
        case .surrogateChanged: surrogateChanged += 1
        }
    }

    public var jsonMembers: [(String, JSONValue)] {
        [
            ("newlyBlocked", .number(Double(newlyBlocked))), ("newlyAllowed", .number(Double(newlyAllowed))),
            ("surrogateChanged", .number(Double(surrogateChanged))), ("flips", .number(Double(total))),
        ]
    }
}

/// What a number of flips stands for: a flip is one request of the corpus (a URL, loaded as one resource type from
/// one page), and a corpus loads a URL from many pages and as several types, so one rule can flip one URL many
/// times. The distinct URLs and pages say how many things changed.
public struct FlipReach: Sendable, Equatable {
    /// Distinct request URLs among the flips.
    public var urls = 0
    /// Distinct pages (top URLs) among the flips.
    public var pages = 0

    public init(urls: Int = 0, pages: Int = 0) {
        self.urls = urls
        self.pages = pages
    }

    public var jsonMembers: [(String, JSONValue)] {
        [("urls", .number(Double(urls))), ("pages", .number(Double(pages)))]
    }
}

public struct FlipSummary: Sendable {
    public struct Group: Sendable {
        public var name: String
        /// The tracker's entity (trackers only).
        public var entity: String?
        public var counts = FlipCounts()
        public var reach = FlipReach()
        /// A few flips of the group (trackers only; see `ExamplePicker`).
        public var examples: [DecisionChange] = []
    }

    public var all = FlipCounts()
    public var reach = FlipReach()
    /// Largest first (ties by name, bytewise): the order every format lists them in.
    public var entities: [Group] = []
    public var trackers: [Group] = []

    /// Examples kept per tracker.
    public static let examplesPerTracker = 3

    /// One pass over the flips (a page at a time).
    public static func make(_ flips: FlipLog, attribution: FlipAttribution) throws -> FlipSummary {
        var tally = Tally(attribution: attribution)
        try flips.forEachPage { page in
            for c in page.changes { tally.add(c) }
        }
        return tally.summary
    }

    /// "summary" of the JSON report: every entity and tracker with its counts (examples are in "requests").
    public var jsonValue: JSONValue {
        func group(_ g: Group, key: String) -> JSONValue {
            var members: [(String, JSONValue)] = [(key, .string(g.name))]
            if let e = g.entity { members.append(("entity", .string(e))) }
            return .object(JSONObject(members + g.counts.jsonMembers + g.reach.jsonMembers))
        }
        return .object(
            JSONObject(
                all.jsonMembers + reach.jsonMembers + [
                    ("entities", .array(entities.map { group($0, key: "entity") })),
                    ("trackers", .array(trackers.map { group($0, key: "tracker") })),
                ]))
    }
}

/// The examples of a tracker: the first flips of a tracker are often one URL as script, as image and as a near
/// miss, all one way. Kept instead: per kind of flip, the first flips of distinct URLs; shown in turns (newly
/// blocked, newly allowed, other surrogate), so that both directions and several URLs appear.
struct ExamplePicker {
    private var byKind: [[DecisionChange]] = FlipKind.allCases.map { _ in [] }
    /// The URLs offered so far, by their numbers in the summary's tally (`ExactNumbers`).
    private var urls = Set<Int32>()

    mutating func offer(_ c: DecisionChange, kind: FlipKind, url: Int32) {
        let k = FlipKind.allCases.firstIndex(of: kind)!
        guard byKind[k].count < FlipSummary.examplesPerTracker else { return }
        guard urls.insert(url).inserted else { return }
        byKind[k].append(c)
    }

    /// Up to `examplesPerTracker`, one of each kind in turn, in corpus order within a kind.
    var examples: [DecisionChange] {
        var out: [DecisionChange] = []
        var turn = 0
        while out.count < FlipSummary.examplesPerTracker, byKind.contains(where: { turn < $0.count }) {
            for kind in byKind where turn < kind.count && out.count < FlipSummary.examplesPerTracker {
                out.append(kind[turn])
            }
            turn += 1
        }
        return out
    }
}
