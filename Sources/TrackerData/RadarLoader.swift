// Loading a Tracker Radar tree: `<dir>/domains/<REGION>/*.json` and `<dir>/entities/*.json` (or a domains
// directory given directly, with region subdirectories or flat files). Files are read and decoded one at a
// time by each worker, so no more than one raw file per core is in memory; the result does not depend on
// scheduling (files are processed in sorted order into fixed slots).
//
// Regions: FORMAT.md describes one file per domain per crawl region but no merge rule, so ours is:
// one record per domain; numbers (prevalence, sites, cookies, fingerprinting, per-type counts) take the
// maximum over regions (the domain's strongest presence anywhere); lists are sorted unions; a resource
// is identified by (rule, type) and the copy with the most sites wins; owner and topInitiators come from
// the region with the highest prevalence (ties: region name order). Lists whose upstream order is not
// stable between generation runs (subdomains, nameservers, resources, cnames) are sorted even for a
// single region, so the same crawl always loads the same way.

import Dispatch
import FileIO
import Foundation
import Parallel
import StrictJSON

public enum RadarLoader {
    /// Loads domain and entity files. `directory` is a tracker-radar checkout (with `domains/` and usually
    /// `entities/`) or a domains directory. `entitiesDirectory` overrides `<directory>/entities`.
    /// `regions` limits the region subdirectories read (nil = all). Malformed files are reported in
    /// `RadarData.issues` and skipped; with `strict` the first problem (in file order) is thrown.
    /// `transform` runs on each decoded domain record in the worker, right after its file is decoded (before
    /// merging), e.g. to drop fields a caller does not need so that a full 24k-file crawl stays small in memory.
    public static func load(
        directory: String, entitiesDirectory: String? = nil, regions: Set<String>? = nil,
        strict: Bool = false,
        transform: @escaping @Sendable (RadarDomain) -> RadarDomain = { $0 }
    ) throws -> RadarData {
        let fm = FileManager.default
        guard isDirectory(directory) else { throw FileError(path: directory, reason: "not a directory") }
        var domainsRoot = directory
        var entitiesRoot = entitiesDirectory
        if isDirectory(join(directory, "domains")) {
            domainsRoot = join(directory, "domains")
            if entitiesRoot == nil, isDirectory(join(directory, "entities")) {
                entitiesRoot = join(directory, "entities")
            }
        }
        if let e = entitiesRoot, !isDirectory(e) { throw FileError(path: e, reason: "not a directory") }

        var domainFiles: [(path: String, region: String?)] = []
        var seenRegions: Set<String> = []
        for name in try listing(domainsRoot, fm) {
            let path = join(domainsRoot, name)
            if isDirectory(path) {
                if let regions, !regions.contains(name) { continue }
                seenRegions.insert(name)
                for file in try listing(path, fm) where file.hasSuffix(".json") {
                    domainFiles.append((join(path, file), name))
                }
            } else if name.hasSuffix(".json") {
                domainFiles.append((path, nil))
            }
        }
        // A region asked for by name and absent is a typo or a partial checkout, not an empty crawl.
        if let regions {
            let missing = regions.subtracting(seenRegions).sorted()
            if !missing.isEmpty {
                throw FileError(path: domainsRoot, reason: "no region folder \(missing.joined(separator: ", "))")
            }
        }
        let entityFiles =
            try entitiesRoot.map { root in try listing(root, fm).filter { $0.hasSuffix(".json") }.map { join(root, $0) }
            } ?? []

        let decodedDomains = try decodeAll(domainFiles, strict: strict) { file in
            let (domain, issues) = try RadarDomain.load(path: file.path, region: file.region, strict: strict)
            return (transform(domain), issues)
        }
        let decodedEntities = try decodeAll(entityFiles, strict: strict) { path in
            try RadarEntity.load(path: path, strict: strict)
        }

        var issues = decodedDomains.issues + decodedEntities.issues
        var byDomain: [String: [RadarDomain]] = [:]
        for d in decodedDomains.values { byDomain[d.domain, default: []].append(d) }
        let domains = byDomain.keys.sorted(by: byteOrder).map { RadarDomain.merged(byDomain[$0]!) }

        var byName: [String: RadarEntity] = [:]
        for (e, path) in zip(decodedEntities.values, decodedEntities.paths) {
            if byName[e.name] != nil {
                issues.append(
                    DecodeIssue(
                        source: path, path: .root / "name",
                        message: "entity \(quoted(e.name)) is defined again; this file replaces the earlier one"))
            }
            byName[e.name] = e
        }
        let entities = byName.keys.sorted(by: byteOrder).map { byName[$0]! }
        return RadarData(domains: domains, entities: entities, issues: issues)
    }

    /// Decodes `items` on all cores. Results keep the order of `items`; a file that throws is reported
    /// (or, strict, the first one in order is rethrown).
    static func decodeAll<Item, Value>(
        _ items: [Item], strict: Bool,
        _ decode: (Item) throws -> (Value, [DecodeIssue])
    ) throws
        -> (values: [Value], paths: [String], issues: [DecodeIssue])
    {
        let slots = Parallel.map(items.count) { i in Result { try decode(items[i]) } }
        var values: [Value] = []
        var paths: [String] = []
        var issues: [DecodeIssue] = []
        for (i, slot) in slots.enumerated() {
            switch slot {
            case .success(let (value, fileIssues)):
                values.append(value)
                paths.append(pathOf(items[i]))
                issues += fileIssues
            case .failure(let error):
                if strict { throw error }
                issues.append(issueFor(error, path: pathOf(items[i])))
            }
        }
        return (values, paths, issues)
    }

    static func pathOf<Item>(_ item: Item) -> String {
        if let s = item as? String { return s }
        if let t = item as? (path: String, region: String?) { return t.path }
        return "\(item)"
    }

    static func issueFor(_ error: Error, path: String) -> DecodeIssue {
        switch error {
        case TrackerDataError.invalid(var issue):
            issue.message += "; file skipped"
            return issue
        case TrackerDataError.invalidJSON(_, let e):
            return DecodeIssue(
                source: path, line: e.line, message: "invalid JSON at column \(e.column): \(e.message); file skipped")
        case let e as FileError:
            return DecodeIssue(source: path, path: .root, message: "\(e.reason); file skipped")
        default:
            return DecodeIssue(source: path, path: .root, message: "\(error); file skipped")
        }
    }

    static func listing(_ dir: String, _ fm: FileManager) throws -> [String] {
        do {
            return try fm.contentsOfDirectory(atPath: dir).filter { !$0.hasPrefix(".") }.sorted(by: byteOrder)
        } catch {
            throw FileError(path: dir, reason: "cannot list directory")
        }
    }

    static func isDirectory(_ path: String) -> Bool {
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDir) && isDir.boolValue
    }

    static func join(_ a: String, _ b: String) -> String { a.hasSuffix("/") ? a + b : a + "/" + b }
}

extension RadarDomain {
    /// Merges records of one domain (from several regions, or several files) into one, as described at the
    /// top of RadarLoader.swift. The order of `records` does not matter.
    public static func merged(_ records: [RadarDomain]) -> RadarDomain {
        precondition(!records.isEmpty, "merging no records")
        // Strongest presence first; ties by region name, then by a stable fallback (resource count).
        let ordered = records.sorted { a, b in
            if a.prevalence != b.prevalence { return a.prevalence > b.prevalence }
            let ra = a.regions.joined(separator: ","), rb = b.regions.joined(separator: ",")
            if ra != rb { return byteOrder(ra, rb) }
            return a.sites > b.sites
        }
        let lead = ordered[0]
        var m = lead
        m.regions = sortedUnion(records.map(\.regions))
        m.owner = ordered.first { $0.owner != nil }?.owner
        m.source = sortedUnion(records.map(\.source))
        m.prevalence = records.map(\.prevalence).max()!
        m.sites = records.map(\.sites).max()!
        m.cookies = records.map(\.cookies).max()!
        m.fingerprinting = records.map(\.fingerprinting).max()!
        m.subdomains = sortedUnion(records.map(\.subdomains))
        m.categories = sortedUnion(records.map(\.categories))
        m.nameservers = sortedUnion(records.map(\.nameservers))
        m.cnames = sortedCnames(records.flatMap(\.cnames))
        m.types = records.reduce(into: [:]) { acc, r in acc.merge(r.types) { max($0, $1) } }
        m.performance = ordered.first { !$0.performance.isEmpty }?.performance ?? RadarPerformance()
        m.topInitiators = ordered.first { $0.topInitiators != nil }?.topInitiators
        m.breaking = ordered.first { $0.breaking != nil }?.breaking
        m.surrogates = ordered.first { $0.surrogates != nil }?.surrogates

        var resources: [ResourceKey: RadarResource] = [:]
        for r in ordered.flatMap(\.resources) {
            let key = ResourceKey(rule: r.rule, type: r.type ?? "")
            if let existing = resources[key], existing.sites >= r.sites { continue }
            var copy = r
            copy.subdomains = copy.subdomains.sorted(by: byteOrder)
            copy.cnames = sortedCnames(copy.cnames)
            resources[key] = copy
        }
        m.resources = resources.keys.sorted().map { resources[$0]! }
        return m
    }

    struct ResourceKey: Hashable, Comparable {
        let rule: String
        let type: String
        static func < (a: ResourceKey, b: ResourceKey) -> Bool {
            a.rule != b.rule ? byteOrder(a.rule, b.rule) : byteOrder(a.type, b.type)
        }
    }

    static func sortedUnion(_ lists: [[String]]) -> [String] {
        Set(lists.joined()).sorted(by: byteOrder)
    }

    static func sortedCnames(_ list: [RadarCNAME]) -> [RadarCNAME] {
        Set(list).sorted {
            $0.original != $1.original ? byteOrder($0.original, $1.original) : byteOrder($0.resolved, $1.resolved)
        }
    }
}
