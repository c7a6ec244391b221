// The answer to one load, and its `match --requests` JSON line:
//   {"actions":[{"type":"block"},{"type":"css-display-none","selector":"a,.b"},...],"stylesheet":"..."}
// `stylesheet` is present only when non-empty: the global display:none stylesheets of the lists that
// did not see an ignore-previous-rules for this load, one per line, in list order.

import ContentRules
import RuleCompiler
import StrictJSON

public struct MatchResult {
    public struct Entry: Hashable, Sendable, BitwiseCopyable {
        /// Index of the rule list (in the order given).
        public var list: Int32
        /// Index of the action in that list's actions.
        public var action: Int32
    }

    /// The reported actions, lists in order, each list's actions in WebKit's order.
    public internal(set) var entries: [Entry] = []
    /// Lists whose global stylesheet applies to this load.
    public internal(set) var stylesheetLists: [Int] = []
    var lists: [LoadedRuleList] = []
    var indices: [Int32] = []
    /// Which deciding rule `match` looks for.
    public enum Deciding: Sendable {
        /// None: `decidedBy` stays nil.
        case none
        /// A blocked load's: `decidedBy` is nil when the load is allowed. Costs no list that reports nothing.
        case blocks
        /// Every load's, the exemption that let an allowed load through included.
        case all
    }

    /// With `match(_:into:deciding: .all)`: the rule that decided the load. When a block was reported, the
    /// last matching rule whose block was reported, in the last list that reported one; otherwise the
    /// last matching ignore-previous-rules rule in the first list that has one (the main list's exemption),
    /// which let the load through; nil when neither matched. "Last" is rule order: in a faithful conversion,
    /// the rule that stands for the first matching TDS rule.
    public internal(set) var decidedBy: DecidingRule? = nil

    public init() {}

    /// The answer "no actions", keeping the storage.
    mutating func clear() {
        entries.emptyKeepingCapacity()
        stylesheetLists.emptyKeepingCapacity()
        decidedBy = nil
    }

    public var actions: [StoredAction] { entries.map { lists[Int($0.list)].actions[Int($0.action)] } }

    /// Whether a block action was reported (without building the actions).
    public var isBlocked: Bool { entries.contains { lists[Int($0.list)].kinds[Int($0.action)] == .block } }

    public var stylesheet: String { stylesheetLists.map { lists[$0].stylesheet }.joined(separator: "\n") }

    public var jsonValue: JSONValue {
        var o = JSONObject()
        o["actions"] = .array(actions.map(\.jsonValue))
        let s = stylesheet
        if !s.isEmpty { o["stylesheet"] = .string(s) }
        return .object(o)
    }

    /// Appends the answer's JSON line (with the newline) to `out`; without `closingWith`, leaves the object
    /// open for more members.
    public func writeJSONLine(into out: inout [UInt8], closingWith close: Bool = true) {
        // Literals' bytes, not static arrays: a static array's reference count is one that every core would write.
        out.append(contentsOf: "{\"actions\":[".utf8)
        for (i, e) in entries.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: lists[Int(e.list)].actionJSON[Int(e.action)])
        }
        out.append(UInt8(ascii: "]"))
        if !stylesheetLists.isEmpty {
            out.append(contentsOf: ",\"stylesheet\":".utf8)
            JSONWriter.writeString(stylesheet, into: &out)
        }
        if close { out.append(contentsOf: [UInt8(ascii: "}"), 0x0A]) }
    }

    /// The line that replaces a request that cannot be answered.
    public static func writeErrorLine(_ message: String, into out: inout [UInt8]) {
        out.append(contentsOf: Array("{\"error\":".utf8))
        JSONWriter.writeString(message, into: &out)
        out.append(contentsOf: [UInt8(ascii: "}"), 0x0A])
    }
}
