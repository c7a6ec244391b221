// The rule lists of a release directory, as its manifest's `lists` array names them, in that order: the
// one place that reads "all lists of a release" (match, diff). A release built for several targets has
// lists for each ("target"); one target's are read (the primary one unless asked), with the
// click-to-load lists, which apply whatever the target. An entry names its compiled list ("rbc"), its
// JSON ("rules") and optionally its provenance ("provenance"); entries may carry more fields
// (click-to-load lists: "ruleAction", "entity"), which are kept as they are.

import ContentRules
import Digest
import FileIO
import Foundation
import RuleCompiler
import RuleEngine
import StrictJSON

public struct ReleaseList {
    /// The manifest's entry for the list.
    public var entry: JSONValue
    /// The entry's "rules" file name (or its "rbc" name when it has no JSON).
    public var name: String
    public var list: LoadedRuleList
    /// The rule-list JSON (empty when the entry names none).
    public var json: [UInt8]
    /// Provenance by JSON index, when the release records it for this list.
    public var provenance: [JSONValue]?
    /// The engine the list was built for (its JSON is parsed as that engine parses it).
    public var target: EngineProfile
    /// The click-to-load action of a click-to-load list; nil for the main list's parts.
    public var ruleAction: String? { entry["ruleAction"]?.stringValue }

    /// The list's content rules, parsed as its target parses them (empty when the entry names no JSON).
    public func contentRules() throws -> [ContentRule] {
        json.isEmpty ? [] : try RuleListParser.parse(bytes: json, options: RuleListParserOptions(target: target)).contentRules
    }
}

public enum ReleaseLists {
    public static func isRelease(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: path + "/" + ReleaseFiles.manifest)
    }

    /// The lists of `target` (nil: the primary target) and the click-to-load lists.
    public static func load(_ dir: String, target: String? = nil) throws -> (Manifest, [ReleaseList]) {
        let manifestPath = dir + "/" + ReleaseFiles.manifest
        let manifest: Manifest
        do {
            manifest = try Manifest.parse(try FileIO.read(manifestPath))
        } catch let e as FileError {
            throw e
        } catch {
            throw FileError(path: manifestPath, reason: String(describing: error))
        }
        if let target, !manifest.targets.isEmpty, !manifest.targets.contains(target) {
            throw FileError(path: manifestPath, reason: "no lists for target \(target) (the release has \(manifest.targets.joined(separator: ", ")))")
        }
        let entries = manifest.lists(for: target)
        let unsplit = !entries.contains { $0["rules"]?.stringValue == ReleaseFiles.rules(part: 2) }
        var out: [ReleaseList] = []
        for entry in entries {
            let i = manifest.lists.firstIndex(of: entry) ?? 0
            let rbcName = entry["rbc"]?.stringValue, rulesName = entry["rules"]?.stringValue
            guard let name = rulesName ?? rbcName else {
                throw FileError(path: manifestPath, reason: "lists[\(i)]: neither \"rules\" nor \"rbc\"")
            }
            for file in [rbcName, rulesName].compactMap({ $0 }) where !isPlainName(file) {
                throw FileError(path: manifestPath, reason: "lists[\(i)]: \"\(file)\" is not a file name in the release")
            }
            let json = try rulesName.map { try FileIO.read(dir + "/" + $0) } ?? []
            let profile = entry["target"]?.stringValue.flatMap(EngineProfile.named) ?? .default
            let list: LoadedRuleList
            if let rbcName {
                let path = dir + "/" + rbcName
                list = try LoadedRuleList(withSource(RBCFile.load(try FileIO.read(path), path: path), json: json))
            } else {
                list = try LoadedRuleList.compiling(json: json, options: .init(name: RuleListIdentifier.defaultName(forPath: name),
                                                                               parser: RuleListParserOptions(target: profile)))
            }
            var provenanceName = entry["provenance"]?.stringValue
            // Releases record one provenance.json for the unsplit list.
            if provenanceName == nil, unsplit, rulesName == ReleaseFiles.rules { provenanceName = ReleaseFiles.provenance }
            var provenance: [JSONValue]? = nil
            if let p = provenanceName, isPlainName(p), FileManager.default.fileExists(atPath: dir + "/" + p) {
                let path = dir + "/" + p
                do {
                    provenance = try JSONParser.parse(try FileIO.read(path)).arrayValue
                } catch let e as JSONParseError {
                    throw FileError(path: path, reason: "invalid JSON at line \(e.line), column \(e.column): \(e.message)")
                }
            }
            out.append(ReleaseList(entry: entry, name: name, list: list, json: json, provenance: provenance, target: profile))
        }
        return (manifest, out)
    }

    /// A manifest names files beside it, never paths elsewhere.
    static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty && !name.contains("/") && name != "." && name != ".."
    }

    /// Explaining a decision needs the rule-list source, which an .rbc may leave out; a release has it beside.
    static func withSource(_ compiled: CompiledRuleList, json: [UInt8]) -> CompiledRuleList {
        guard !compiled.hasSource, !json.isEmpty, Digest.hash(.sha256, json) == compiled.sourceSHA256 else { return compiled }
        var c = compiled
        c.source = json
        return c
    }
}
