// radarblock inspect: what is inside an .rbc file.

import ContentRules
import Digest
import FileIO
import Foundation
import RuleCompiler
import StrictJSON

enum InspectCommand: Command {
    static let name = "inspect"
    static let summary = "show an .rbc file's header, identifier, counts and automata sizes"
    static var help: String {
        """
        usage: radarblock inspect LIST.rbc [--json]

        Checks the file completely (magic, format version, size, checksum, sections, identifier) and
        prints its identifier, versions, rule and action counts, the global stylesheet size and each
        section's and automaton's size. --json prints one JSON object instead.
        """
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try ParsedArguments.parse(arguments, options: [OptionSpec("--json", value: false)], positionals: 1...1)
        let path = args.positionals[0]
        let bytes = try FileIO.read(path)
        let list = try RBCFile.load(bytes, path: path)
        let info = try RBCInspection(list: list, fileBytes: bytes)
        if args.has("--json") {
            print(JSONWriter.string(info.jsonValue))
        } else {
            print(info.text, terminator: "")
        }
        return ExitCode.success
    }
}

/// The facts `inspect` reports.
struct RBCInspection {
    let list: CompiledRuleList
    let fileBytes: [UInt8]
    let actionCounts: [(String, Int)]
    let automata: [(String, MatcherStatistics)]

    init(list: CompiledRuleList, fileBytes: [UInt8]) throws {
        self.list = list
        self.fileBytes = fileBytes
        let all = try list.actions.withUnsafeBytes { try ActionBlob.all($0) }
        var counts: [String: Int] = [:]
        for (_, a) in all { counts[a.kind.typeName, default: 0] += 1 }
        actionCounts = counts.sorted { $0.key < $1.key }
        automata = try [("url", list.urlMatcher), ("top-url", list.topURLMatcher), ("frame-url", list.frameURLMatcher)].map { name, bytes in
            (name, try bytes.withUnsafeBytes { try Matcher(serialized: $0) }.statistics)
        }
    }

    var sections: [(tag: String, offset: Int, size: Int)] { RBCFile.sectionSizes(fileBytes) }

    var jsonValue: JSONValue {
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
        o["sections"] = .array(sections.map { .object(JSONObject([("tag", .string($0.tag)), ("offset", .number(Double($0.offset))), ("size", .number(Double($0.size)))])) })
        o["automata"] = .object(JSONObject(automata.map { name, s in
            (name, .object(JSONObject([
                ("bytes", .number(Double(s.bytes))), ("patterns", .number(Double(s.patterns))),
                ("universalIds", .number(Double(s.universalIds))), ("dfas", .number(Double(s.dfaCount))),
                ("dfaStates", .number(Double(s.dfaStates))), ("nfas", .number(Double(s.nfaCount))),
                ("nfaNodes", .number(Double(s.nfaNodes))), ("actionIds", .number(Double(s.actionIds))),
            ])))
        }))
        return .object(o)
    }

    var text: String {
        var s = ""
        s += "identifier      \(list.identifier)\n"
        s += "format version  \(RBCFile.formatVersion)\n"
        s += "tool version    \(list.toolVersion)\n"
        s += "source sha256   \(hexString(list.sourceSHA256))\n"
        s += "file size       \(fileBytes.count) bytes\n"
        s += "rules           \(list.sourceRuleCount) in the source, \(list.skippedRuleCount) skipped, \(list.rules.count) compiled\n"
        s += "actions         \(actionCounts.map { "\($0.1) \($0.0)" }.joined(separator: ", ")) (\(list.actions.count) bytes)\n"
        s += "universal       \(list.universalActions.count) actions match every URL\n"
        s += "stylesheet      \(list.stylesheet.isEmpty ? "none" : "\(list.stylesheet.utf8.count) bytes")\n"
        s += "automata\n"
        for (name, st) in automata {
            s += "  \(name.padding(toLength: 10, withPad: " ", startingAt: 0)) \(st.bytes) bytes, \(st.patterns) patterns, \(st.universalIds) universal ids, \(st.dfaCount) DFAs, \(st.dfaStates) states\n"
        }
        s += "sections\n"
        for sec in sections {
            s += "  \(sec.tag)  offset \(sec.offset), \(sec.size) bytes\n"
        }
        return s
    }
}
