// Per-list changes between two releases: a release holds a main list (maybe split into parts) and one
// click-to-load list per supported rule action, each named by its file in the release. An app swaps lists one by
// one, so the diff says which lists appeared, disappeared or changed, with their identifiers and rule counts.

import ContentRules
import StrictJSON

/// One list of a diff side.
public struct ListRecord: Sendable {
    /// The list's rules file in the release (`rules.json`, `rules-2.json`, `ctl-<ruleAction>.json`): the key
    /// that pairs lists across releases.
    public var name: String
    public var identifier: String?
    public var ruleAction: String?
    public var rules: [ContentRule]

    public init(name: String, identifier: String?, ruleAction: String? = nil, rules: [ContentRule]) {
        self.name = name
        self.identifier = identifier
        self.ruleAction = ruleAction
        self.rules = rules
    }
}

public struct ListChange: Sendable, Equatable {
    public enum Status: String, Sendable { case added, removed, changed }

    public var name: String
    public var ruleAction: String?
    public var status: Status
    public var identifier: ValueChange<String?>
    public var ruleCount: ValueChange<Int?>
    public var rulesAdded: Int
    public var rulesRemoved: Int
    /// Hidden selectors (with the trigger that says where) only in the new list / only in the old one.
    public var selectorsAdded: [HiddenSelector] = []
    public var selectorsRemoved: [HiddenSelector] = []

    /// The lists whose identifier or rules differ, in the new side's order, then the removed ones. An identifier
    /// digests its list's bytes, so equal identifiers need no rule comparison; `known` gives a comparison already
    /// made (the main list's) by list name.
    public static func compare(old: [ListRecord], new: [ListRecord], known: [String: RuleSetDiff] = [:]) -> [ListChange]
    {
        var out: [ListChange] = []
        for n in new {
            guard let o = old.first(where: { $0.name == n.name }) else {
                out.append(
                    ListChange(
                        name: n.name, ruleAction: n.ruleAction, status: .added,
                        identifier: ValueChange(old: nil, new: n.identifier),
                        ruleCount: ValueChange(old: nil, new: n.rules.count), rulesAdded: n.rules.count, rulesRemoved: 0
                    ))
                continue
            }
            if let a = o.identifier, a == n.identifier { continue }
            let rules = known[n.name] ?? RuleSetDiff.compare(old: o.rules, new: n.rules)
            guard o.identifier != n.identifier || !rules.isEmpty else { continue }
            var change = ListChange(
                name: n.name, ruleAction: n.ruleAction ?? o.ruleAction, status: .changed,
                identifier: ValueChange(old: o.identifier, new: n.identifier),
                ruleCount: ValueChange(old: o.rules.count, new: n.rules.count),
                rulesAdded: rules.added.count, rulesRemoved: rules.removed.count)
            (change.selectorsAdded, change.selectorsRemoved) = HiddenSelector.compare(old: o.rules, new: n.rules)
            out.append(change)
        }
        for o in old where !new.contains(where: { $0.name == o.name }) {
            out.append(
                ListChange(
                    name: o.name, ruleAction: o.ruleAction, status: .removed,
                    identifier: ValueChange(old: o.identifier, new: nil),
                    ruleCount: ValueChange(old: o.rules.count, new: nil), rulesAdded: 0, rulesRemoved: o.rules.count))
        }
        return out
    }

    public var jsonValue: JSONValue {
        var o = JSONObject()
        o["list"] = .string(name)
        if let ruleAction { o["ruleAction"] = .string(ruleAction) }
        o["status"] = .string(status.rawValue)
        o["identifier"] = [
            "old": identifier.old.map(JSONValue.string) ?? .null, "new": identifier.new.map(JSONValue.string) ?? .null,
        ]
        o["ruleCount"] = [
            "old": ruleCount.old.map { .number(Double($0)) } ?? .null,
            "new": ruleCount.new.map { .number(Double($0)) } ?? .null,
        ]
        o["rulesAdded"] = .number(Double(rulesAdded))
        o["rulesRemoved"] = .number(Double(rulesRemoved))
        if !selectorsAdded.isEmpty || !selectorsRemoved.isEmpty {
            o["selectorsAdded"] = .array(selectorsAdded.map(\.jsonValue))
            o["selectorsRemoved"] = .array(selectorsRemoved.map(\.jsonValue))
        }
        return .object(o)
    }

    public var line: String {
        let what = ruleAction.map { " (click-to-load \($0))" } ?? ""
        switch status {
        case .added: return "list \(name)\(what): added, \(rulesAdded) rules"
        case .removed: return "list \(name)\(what): removed, \(rulesRemoved) rules"
        case .changed:
            let selectors =
                selectorsAdded.isEmpty && selectorsRemoved.isEmpty
                ? ""
                : "; \(selectorsAdded.count) hidden selectors added, \(selectorsRemoved.count) removed"
            return
                "list \(name)\(what): \(rulesAdded) rules added, \(rulesRemoved) removed\(selectors); identifier "
                + "\(identifier.old ?? "none") -> \(identifier.new ?? "none")"
        }
    }
}

/// One selector a css-display-none rule hides, with the rule's trigger.
public struct HiddenSelector: Sendable, Hashable {
    public var selector: String
    public var trigger: Trigger

    public var jsonValue: JSONValue { ["selector": .string(selector), "trigger": trigger.jsonValue] }

    /// Every selector of every css-display-none rule, in rule order.
    static func all(_ rules: [ContentRule]) -> [HiddenSelector] {
        rules.flatMap { r -> [HiddenSelector] in
            guard case .cssDisplayNone(let list) = r.action else { return [] }
            return CSSSelectorValidator.topLevelSelectors(list).map { HiddenSelector(selector: $0, trigger: r.trigger) }
        }
    }

    /// (only in new, only in old), each in its list's order.
    static func compare(old: [ContentRule], new: [ContentRule]) -> ([HiddenSelector], [HiddenSelector]) {
        let a = all(old), b = all(new)
        let inOld = Set(a), inNew = Set(b)
        return (b.filter { !inOld.contains($0) }, a.filter { !inNew.contains($0) })
    }
}
