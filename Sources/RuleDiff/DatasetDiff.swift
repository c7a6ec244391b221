// What changed between two tracker datasets, keyed by tracker domain: the view a blocklist
// maintainer reads before a release. A tracker counts as changed when its default action, its rules
// (content or order: order is precedence) or its owner differ; other edits (prevalence, categories)
// are reported as details but do not make a tracker "changed".

import TrackerData

public struct ValueChange<T: Sendable & Equatable>: Sendable, Equatable {
    public let old: T
    public let new: T
    public init(old: T, new: T) {
        self.old = old
        self.new = new
    }
}

public struct RuleEdit: Sendable, Equatable {
    /// The rule regex that identifies the rule on both sides.
    public let rule: String
    /// Which fields differ: "action", "options", "exceptions", "surrogate".
    public let fields: [String]
    public let old: TrackerRule
    public let new: TrackerRule
}

public struct TrackerChange: Sendable, Equatable {
    public let domain: String
    public var defaultAction: ValueChange<String?>?
    public var owner: ValueChange<String?>?
    public var rulesAdded: [TrackerRule] = []
    public var rulesRemoved: [TrackerRule] = []
    public var rulesEdited: [RuleEdit] = []
    /// The same rules in another order (first match wins, so order is behaviour).
    public var rulesReordered = false

    public var isChanged: Bool {
        defaultAction != nil || owner != nil || !rulesAdded.isEmpty || !rulesRemoved.isEmpty || !rulesEdited.isEmpty
            || rulesReordered
    }
}

public struct EntityChange: Sendable, Equatable {
    public let name: String
    public let domainsAdded: [String]
    public let domainsRemoved: [String]
}

public struct DatasetDiff: Sendable, Equatable {
    public var trackersAdded: [String] = []
    public var trackersRemoved: [String] = []
    public var trackersChanged: [TrackerChange] = []
    public var entitiesAdded: [String] = []
    public var entitiesRemoved: [String] = []
    public var entitiesChanged: [EntityChange] = []
    public var cnamesAdded: [String: String] = [:]
    public var cnamesRemoved: [String: String] = [:]
    public var cnamesRetargeted: [String: ValueChange<String>] = [:]

    public var isEmpty: Bool {
        trackersAdded.isEmpty && trackersRemoved.isEmpty && trackersChanged.isEmpty && entitiesAdded.isEmpty
            && entitiesRemoved.isEmpty && entitiesChanged.isEmpty && cnamesAdded.isEmpty && cnamesRemoved.isEmpty
            && cnamesRetargeted.isEmpty
    }

    public init() {}

    public static func compare(_ old: TrackerDataSet, _ new: TrackerDataSet) -> DatasetDiff {
        var diff = DatasetDiff()
        let oldKeys = Set(old.trackers.keys), newKeys = Set(new.trackers.keys)
        diff.trackersAdded = newKeys.subtracting(oldKeys).sorted(by: byteOrder)
        diff.trackersRemoved = oldKeys.subtracting(newKeys).sorted(by: byteOrder)
        for domain in oldKeys.intersection(newKeys).sorted(by: byteOrder) {
            let change = compareTracker(old.trackers[domain]!, new.trackers[domain]!)
            if change.isChanged { diff.trackersChanged.append(change) }
        }

        let oldEntities = Set(old.entities.keys), newEntities = Set(new.entities.keys)
        diff.entitiesAdded = newEntities.subtracting(oldEntities).sorted(by: byteOrder)
        diff.entitiesRemoved = oldEntities.subtracting(newEntities).sorted(by: byteOrder)
        for name in oldEntities.intersection(newEntities).sorted(by: byteOrder) {
            let a = Set(old.entities[name]!.domains), b = Set(new.entities[name]!.domains)
            if a != b {
                diff.entitiesChanged.append(
                    EntityChange(
                        name: name, domainsAdded: b.subtracting(a).sorted(by: byteOrder),
                        domainsRemoved: a.subtracting(b).sorted(by: byteOrder)))
            }
        }

        for (alias, target) in new.cnames {
            if let was = old.cnames[alias] {
                if was != target { diff.cnamesRetargeted[alias] = ValueChange(old: was, new: target) }
            } else {
                diff.cnamesAdded[alias] = target
            }
        }
        for (alias, target) in old.cnames where new.cnames[alias] == nil { diff.cnamesRemoved[alias] = target }
        return diff
    }

    static func compareTracker(_ old: Tracker, _ new: Tracker) -> TrackerChange {
        var change = TrackerChange(domain: new.domain)
        if old.defaultAction != new.defaultAction {
            change.defaultAction = ValueChange(old: old.defaultAction?.rawValue, new: new.defaultAction?.rawValue)
        }
        if old.owner != new.owner {
            change.owner = ValueChange(old: old.owner?.name, new: new.owner?.name)
        }
        guard old.rules != new.rules else { return change }

        // Pair rules by their regex, in order, so duplicates pair up one to one.
        var unmatchedOld: [String: [Int]] = [:]
        for (i, r) in old.rules.enumerated() { unmatchedOld[r.rule, default: []].append(i) }
        var pairedOldIndices: [Int] = []
        for r in new.rules {
            if var candidates = unmatchedOld[r.rule], !candidates.isEmpty {
                let i = candidates.removeFirst()
                unmatchedOld[r.rule] = candidates
                pairedOldIndices.append(i)
                let o = old.rules[i]
                let fields = editedFields(o, r)
                if !fields.isEmpty { change.rulesEdited.append(RuleEdit(rule: r.rule, fields: fields, old: o, new: r)) }
            } else {
                change.rulesAdded.append(r)
            }
        }
        let paired = Set(pairedOldIndices)
        change.rulesRemoved = old.rules.indices.filter { !paired.contains($0) }.map { old.rules[$0] }
        change.rulesReordered = pairedOldIndices != pairedOldIndices.sorted()
        return change
    }

    static func editedFields(_ a: TrackerRule, _ b: TrackerRule) -> [String] {
        var fields: [String] = []
        if a.action != b.action { fields.append("action") }
        if a.options != b.options { fields.append("options") }
        if a.exceptions != b.exceptions { fields.append("exceptions") }
        if a.surrogate != b.surrogate { fields.append("surrogate") }
        if fields.isEmpty && a != b { fields.append("metadata") }
        return fields
    }
}
