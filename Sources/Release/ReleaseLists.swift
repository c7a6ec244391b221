// The rule lists of a release directory, as its manifest's `lists` array names them, in that order: the
// one place that reads "all lists of a release" (match, diff). A release built for several targets has
// lists for each ("target"); one target's are read (the primary one unless asked), with the
// click-to-load lists and the cookie pop-up list, which apply whatever the target. An entry (ManifestList) names
// its compiled list ("rbc"), its JSON ("rules") and optionally its provenance ("provenance").

import ContentRules
import Digest
import FileIO
import Foundation
import Provenance
import RuleCompiler
import RuleDiff
import RuleEngine
import StrictJSON

public struct ReleaseList {
    /// The manifest's entry for the list.
    public var entry: ManifestList
    /// The entry's "rules" file name (or its "rbc" name when it has no JSON).
    public var name: String
    public var list: LoadedRuleList
    /// The rule-list JSON (empty when the entry names none).
    public var json: [UInt8]
    /// Provenance by JSON index, when the release records it for this list.
    public var provenance: [RuleProvenance]?
    /// The .rbc format of a list compiled here from its recorded JSON, because its .rbc was written by a radarblock
    /// of another format (nil: loaded from its .rbc, or a list without one). The JSON is the list (its sha256 is the
    /// manifest's), the .rbc only its compiled form: a release built before an upgrade still answers, and a nightly
    /// job's --previous release still diffs.
    public var recompiledFrom: UInt32?

    /// What a command says on stderr about a list compiled from its JSON (`recompiledFrom`), nil for the others.
    public func recompiledNote(release dir: String) -> String? {
        guard let version = recompiledFrom, let rbc = entry.rbc else { return nil }
        return "note: \(dir)/\(rbc) is .rbc format \(version), this radarblock reads \(RBCFile.formatVersion): compiled"
            + " from its recorded \(name) instead"
    }
    /// The engine the list was built for (its JSON is parsed as that engine parses it).
    public var target: EngineProfile
    /// The click-to-load action of a click-to-load list; nil for the main list's parts.
    public var ruleAction: String? { entry.ruleAction }
    public var role: ReleaseListRole { entry.kind }
    public var isMain: Bool { role == .main }

    /// The list's content rules, parsed as its target parses them (empty when the entry names no JSON).
    public func contentRules() throws -> [ContentRule] {
        json.isEmpty
            ? [] : try RuleListParser.parse(bytes: json, options: RuleListParserOptions(target: target)).contentRules
    }

    /// The list by name for the per-list report of a diff, with `rules` (its `contentRules()`).
    public func record(rules: [ContentRule]) -> ListRecord {
        ListRecord(name: name, identifier: entry.identifier, ruleAction: ruleAction, rules: rules)
    }
}

public enum ReleaseLists {
    public static func isRelease(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: path + "/" + ReleaseFiles.manifest)
    }

    /// The lists of `target` (nil: the primary target) and the click-to-load lists.
    public static func load(_ dir: String, target: String? = nil) throws -> (Manifest, [ReleaseList]) {
        let files = ReleaseFileSource.directory(dir)
        let manifestPath = files.path(ReleaseFiles.manifest)
        let manifest: Manifest
        do {
            manifest = try Manifest.parse(try files.read(ReleaseFiles.manifest))
        } catch let e as FileError {
            throw e
        } catch {
            throw FileError(path: manifestPath, reason: String(describing: error))
        }
        return (manifest, try lists(of: manifest, target: target, files: files))
    }

    /// The lists `manifest` names, read from `files`: the one reader for a published release and for a
    /// build's products before they are published (its --previous comparison).
    public static func lists(of manifest: Manifest, target: String? = nil, files: ReleaseFileSource) throws
        -> [ReleaseList]
    {
        let manifestPath = files.path(ReleaseFiles.manifest)
        if let target, !manifest.targets.isEmpty, !manifest.targets.contains(target) {
            throw FileError(
                path: manifestPath,
                reason: "no lists for target \(target) (the release has \(manifest.targets.joined(separator: ", ")))")
        }
        let entries = manifest.lists(for: target)
        let unsplit = !entries.contains { $0.rules == ReleaseFiles.rules(part: 2) }
        return try entries.map { entry in
            let index = manifest.lists.firstIndex(of: entry) ?? 0
            return try list(entry, index: index, unsplit: unsplit, recorded: manifest.outputs, files: files)
        }
    }

    /// One manifest entry's list: its JSON, its compiled form (loaded from the .rbc, else compiled from the
    /// JSON) and its provenance.
    static func list(
        _ entry: ManifestList, index i: Int, unsplit: Bool, recorded: [OutputRecord], files: ReleaseFileSource
    ) throws -> ReleaseList {
        let manifestPath = files.path(ReleaseFiles.manifest)
        let rbcName = entry.rbc, rulesName = entry.rules
        guard let name = rulesName ?? rbcName else {
            throw FileError(path: manifestPath, reason: "lists[\(i)]: neither \"rules\" nor \"rbc\"")
        }
        for file in [rbcName, rulesName].compactMap({ $0 }) { try checkPlainName(file, list: i, files: files) }
        let json = try rulesName.map { try readRecorded($0, recorded: recorded, files: files) } ?? []
        let profile = entry.target.flatMap(EngineProfile.named) ?? .default
        func compiled(name listName: String, dataset: String? = nil) throws -> LoadedRuleList {
            try LoadedRuleList.compiling(
                json: json,
                options: .init(name: listName, dataset: dataset, parser: RuleListParserOptions(target: profile)))
        }
        let list: LoadedRuleList
        var recompiledFrom: UInt32? = nil
        if let rbcName {
            let rbc = try readRecorded(rbcName, recorded: recorded, files: files)
            if let version = RBCFile.formatVersion(of: rbc), version != RBCFile.formatVersion, rulesName != nil {
                // Named as the build named it: only the format in its identifier is this radarblock's.
                let identifier = RuleListIdentifier.parse(entry.identifier)
                list = try compiled(
                    name: identifier?.name ?? RuleListIdentifier.defaultName(forPath: name),
                    dataset: identifier?.dataset)
                recompiledFrom = version
            } else {
                list = try LoadedRuleList(withSource(RBCFile.load(rbc, path: files.path(rbcName)), json: json))
            }
        } else {
            list = try compiled(name: RuleListIdentifier.defaultName(forPath: name))
        }
        var provenanceName = entry.provenance
        // Releases record one provenance.json for the unsplit list.
        if provenanceName == nil, unsplit, rulesName == ReleaseFiles.rules { provenanceName = ReleaseFiles.provenance }
        let provenance = try provenanceName.flatMap { try readProvenance($0, recorded: recorded, files: files) }
        return ReleaseList(
            entry: entry, name: name, list: list, json: json, provenance: provenance, recompiledFrom: recompiledFrom,
            target: profile)
    }

    /// A provenance file the release has (nil when it has none by that name).
    static func readProvenance(_ name: String, recorded: [OutputRecord], files: ReleaseFileSource) throws
        -> [RuleProvenance]?
    {
        guard isPlainName(name), files.exists(name) else { return nil }
        return try RuleProvenance.decodeList(
            try readRecorded(name, recorded: recorded, files: files), file: files.path(name))
    }

    /// A list file's bytes, refused when they are not those the manifest recorded (`outputs`): an edited
    /// rules.json beside its old rules.rbc would otherwise be answered from the .rbc, for rules the release no
    /// longer has, without a word. Rebuilding instead would answer for a release that was never built.
    static func readRecorded(_ name: String, recorded: [OutputRecord], files: ReleaseFileSource) throws -> [UInt8] {
        let bytes = try files.read(name)
        guard let expected = recorded.first(where: { $0.name == name })?.sha256 else { return bytes }
        let actual = Digest.hex(.sha256, bytes)
        guard actual == expected else {
            throw FileError(
                path: files.path(name),
                reason: "sha256 \(actual) differs from the manifest's \(expected) (outputs.\(name)): the file was"
                    + " changed after the release was built; rebuild the release (`radarblock build`) or restore the"
                    + " file")
        }
        return bytes
    }

    /// A manifest names files beside it, never paths elsewhere.
    static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty && !name.contains("/") && name != "." && name != ".."
    }

    /// The error for a file of the manifest's lists[i] that is not a plain name.
    public static func checkPlainName(_ name: String, list i: Int, files: ReleaseFileSource) throws {
        guard isPlainName(name) else {
            throw FileError(
                path: files.path(ReleaseFiles.manifest),
                reason: "lists[\(i)]: \"\(name)\" is not a file name in the release")
        }
    }

    /// Explaining a decision needs the rule-list source, which an .rbc may leave out; a release has it beside.
    public static func withSource(_ compiled: CompiledRuleList, json: [UInt8]) -> CompiledRuleList {
        guard !compiled.hasSource, !json.isEmpty, Digest.hash(.sha256, json) == compiled.sourceSHA256 else {
            return compiled
        }
        var c = compiled
        c.source = json
        return c
    }
}

/// Where a release's files are read from: its directory, or the files of a build not yet published.
public struct ReleaseFileSource {
    /// The bytes of the file the manifest names (an error names the file).
    public var read: (String) throws -> [UInt8]
    /// Whether the release has the file (provenance is optional).
    public var exists: (String) -> Bool
    /// The path an error gives for the file.
    public var path: (String) -> String

    public static func directory(_ dir: String) -> ReleaseFileSource {
        ReleaseFileSource(
            read: { try FileIO.read(dir + "/" + $0) },
            exists: { FileManager.default.fileExists(atPath: dir + "/" + $0) },
            path: { dir + "/" + $0 })
    }

    public static func products(_ files: [(name: String, bytes: [UInt8])]) -> ReleaseFileSource {
        let byName = Dictionary(files.map { ($0.name, $0.bytes) }, uniquingKeysWith: { first, _ in first })
        return ReleaseFileSource(
            read: { name in
                guard let bytes = byName[name] else {
                    throw FileError(path: name, reason: "not among the files of the build")
                }
                return bytes
            },
            exists: { byName[$0] != nil },
            path: { $0 })
    }
}
