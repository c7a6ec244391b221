// What an .rbc file holds, as `radarblock inspect` reports it: identifier, versions, counts, the
// sizes of its sections and automata.

import Digest
import Foundation
import StrictJSON

/// The facts `inspect` reports.
public struct RBCInspection {
    public let list: CompiledRuleList
    public let fileBytes: [UInt8]
    public let actionCounts: [(String, Int)]
    public let automata: [(String, MatcherStatistics)]

    public init(list: CompiledRuleList, fileBytes: [UInt8]) throws {
        self.list = list
        self.fileBytes = fileBytes
        let all = try list.actions.withUnsafeBytes { try ActionBlob.all($0) }
        var counts: [String: Int] = [:]
        for (_, a) in all { counts[a.kind.typeName, default: 0] += 1 }
        actionCounts = counts.sorted { $0.key < $1.key }
        automata = [
            ("url", list.urlMatcher.statistics), ("top-url", list.topURLMatcher.statistics),
            ("frame-url", list.frameURLMatcher.statistics),
        ]
    }

    public var sections: [(tag: String, offset: Int, size: Int)] { RBCFile.sectionSizes(fileBytes) }

    public var jsonValue: JSONValue {
        var o = JSONObject()
        o["identifier"] = .string(list.identifier)
        o["name"] = .string(list.name)
        o["dataset"] = list.dataset.map { .string($0) } ?? .null
        o["formatVersion"] = .number(Double(RBCFile.formatVersion))
        o["toolVersion"] = .string(list.toolVersion)
        o["sourceSHA256"] = .string(hexString(list.sourceSHA256))
        o["fileSize"] = .number(Double(fileBytes.count))
        o["sourceRules"] = .number(Double(list.sourceRuleCount))
        o["skippedRules"] = .number(Double(list.skippedRuleCount))
        o["compiledRules"] = .number(Double(list.rules.count))
        o["actions"] = .object(JSONObject(actionCounts.map { ($0.0, .number(Double($0.1))) }))
        o["actionsBytes"] = .number(Double(list.actions.count))
        o["universalActions"] = .number(Double(list.universalActions.count))
        o["stylesheetBytes"] = .number(Double(list.stylesheet.utf8.count))
        o["sections"] = .array(
            sections.map {
                .object(
                    JSONObject([
                        ("tag", .string($0.tag)), ("offset", .number(Double($0.offset))),
                        ("size", .number(Double($0.size))),
                    ]))
            })
        o["automata"] = .object(
            JSONObject(
                automata.map { name, s in
                    (
                        name,
                        .object(
                            JSONObject([
                                ("bytes", .number(Double(s.bytes))), ("patterns", .number(Double(s.patterns))),
                                ("universalIds", .number(Double(s.universalIds))),
                                ("dfas", .number(Double(s.dfaCount))),
                                ("dfaStates", .number(Double(s.dfaStates))), ("nfas", .number(Double(s.nfaCount))),
                                ("nfaNodes", .number(Double(s.nfaNodes))), ("actionIds", .number(Double(s.actionIds))),
                                ("hostKeys", .number(Double(s.hostKeys))),
                                ("hostTableBytes", .number(Double(s.hostTableBytes))),
                                ("gatedDFAs", .number(Double(s.gatedDFAs))),
                            ]))
                    )
                }))
        return .object(o)
    }

    public var text: String {
        var s = ""
        s += "identifier      \(list.identifier)\n"
        s += "format version  \(RBCFile.formatVersion)\n"
        s += "tool version    \(list.toolVersion)\n"
        s += "source sha256   \(hexString(list.sourceSHA256))\n"
        s += "file size       \(fileBytes.count) bytes\n"
        s +=
            "rules           \(list.sourceRuleCount) in the source, \(list.skippedRuleCount) skipped, "
            + "\(list.rules.count) compiled\n"
        s +=
            "actions         \(actionCounts.map { "\($0.1) \($0.0)" }.joined(separator: ", ")) "
            + "(\(list.actions.count) bytes)\n"
        s += "universal       \(list.universalActions.count) actions match every URL\n"
        s += "stylesheet      \(list.stylesheet.isEmpty ? "none" : "\(list.stylesheet.utf8.count) bytes")\n"
        s += "automata\n"
        for (name, st) in automata {
            s +=
                "  \(name.padding(toLength: 10, withPad: " ", startingAt: 0)) \(st.bytes) bytes, \(st.patterns) "
                + "patterns, \(st.universalIds) universal ids, \(st.dfaCount) DFAs, \(st.dfaStates) states"
                + (st.hostKeys == 0 ? "" : ", \(st.hostKeys) hosts in a table (\(st.hostTableBytes) bytes)")
                + (st.gatedDFAs == 0 ? "" : " gating \(st.gatedDFAs) DFA\(st.gatedDFAs == 1 ? "" : "s")") + "\n"
        }
        s += "sections\n"
        for sec in sections {
            s += "  \(sec.tag)  offset \(sec.offset), \(sec.size) bytes\n"
        }
        return s
    }
}
