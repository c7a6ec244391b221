// The rule lists of a release directory, as its manifest's `lists` array names them, in that order: the
// one place that reads "all lists of a release" (match, diff). An entry names its compiled list ("rbc"),
// its JSON ("rules") and optionally its provenance ("provenance"); entries may carry more fields
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
}

public enum ReleaseLists {
    public static func isRelease(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: path + "/" + ReleaseFiles.manifest)
    }

    public static func load(_ dir: String) throws -> (Manifest, [ReleaseList]) {
        let manifestPath = dir + "/" + ReleaseFiles.manifest
        let manifest: Manifest
        do {
            manifest = try Manifest.parse(try FileIO.read(manifestPath))
        } catch let e as FileError {
            throw e
        } catch {
            throw FileError(path: manifestPath, reason: String(describing: error))
        }
        let unsplit = !manifest.lists.contains { $0["rules"]?.stringValue == ReleaseFiles.rules(part: 2) }
        var out: [ReleaseList] = []
        for (i, entry) in manifest.lists.enumerated() {
            let rbcName = entry["rbc"]?.stringValue, rulesName = entry["rules"]?.stringValue
            guard let name = rulesName ?? rbcName else {
                throw FileError(path: manifestPath, reason: "lists[\(i)]: neither \"rules\" nor \"rbc\"")
            }
            for file in [rbcName, rulesName].compactMap({ $0 }) where !isPlainName(file) {
                throw FileError(path: manifestPath, reason: "lists[\(i)]: \"\(file)\" is not a file name in the release")
            }
            let json = try rulesName.map { try FileIO.read(dir + "/" + $0) } ?? []
            let list: LoadedRuleList
            if let rbcName {
                let path = dir + "/" + rbcName
                list = try LoadedRuleList(withSource(RBCFile.load(try FileIO.read(path), path: path), json: json))
            } else {
                list = try LoadedRuleList.compiling(json: json, options: .init(name: RuleListIdentifier.defaultName(forPath: name)))
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
            out.append(ReleaseList(entry: entry, name: name, list: list, json: json, provenance: provenance))
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
