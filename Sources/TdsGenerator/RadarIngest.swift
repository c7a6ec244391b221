// Streaming ingest for the generator. TrackerData's RadarLoader keeps every decoded field of every file;
// a full Tracker Radar tree (24k+ domain files per region, each with example sites, response hashes, API
// counts and first-party cookie tables) does not fit in memory that way. This ingest uses the same
// per-file decoders (RadarDomain.load / RadarEntity.load), the same directory layout and the same region
// merge (RadarDomain.merged), but strips each record down to the fields the generator reads as soon as the
// file is decoded, so memory holds one raw file per core plus the compact records.

import Dispatch
import FileIO
import Foundation
import StrictJSON
import TrackerData

public enum RadarIngest {
    public struct Options: Sendable {
        /// A tracker-radar checkout (with `domains/`, usually `entities/`) or a domains directory.
        public var directory: String
        /// Overrides `<directory>/entities`.
        public var entitiesDirectory: String?
        /// Region subdirectories to read (nil = all).
        public var regions: Set<String>?
        /// Throw on the first malformed file (in path order) instead of reporting and skipping it.
        public var strict: Bool

        public init(directory: String, entitiesDirectory: String? = nil, regions: Set<String>? = nil, strict: Bool = false) {
            self.directory = directory
            self.entitiesDirectory = entitiesDirectory
            self.regions = regions
            self.strict = strict
        }
    }

    /// Loads and compacts a radar tree. Output order is deterministic (domains and entities sorted in byte order,
    /// issues in file order), independent of thread scheduling.
    public static func load(_ options: Options) throws -> RadarData {
        let (domainFiles, entityFiles) = try listFiles(options)
        let strict = options.strict
        let domains = try decodeAll(domainFiles, strict: strict) { file in
            let (d, issues) = try RadarDomain.load(path: file.path, region: file.region, strict: strict)
            return (compact(d), issues)
        }
        let entities = try decodeAll(entityFiles.map { ($0, nil) }, strict: strict) { file in
            try RadarEntity.load(path: file.path, strict: strict)
        }

        var issues = domains.issues + entities.issues
        var byDomain: [String: [RadarDomain]] = [:]
        for d in domains.values { byDomain[d.domain, default: []].append(d) }
        let merged = byDomain.keys.sorted(by: byteOrder).map { RadarDomain.merged(byDomain[$0]!) }

        var byName: [String: RadarEntity] = [:]
        for (e, path) in zip(entities.values, entities.paths) {
            if byName[e.name] != nil {
                issues.append(DecodeIssue(source: path, path: .root / "name",
                                          message: "entity \"\(e.name)\" is defined again; this file replaces the earlier one"))
            }
            byName[e.name] = e
        }
        return RadarData(domains: merged, entities: byName.keys.sorted(by: byteOrder).map { byName[$0]! }, issues: issues)
    }

    /// Drops what the generator never reads (example sites, hashes, API tables, first-party cookie tables,
    /// subdomain lists, name servers, initiators, performance).
    public static func compact(_ d: RadarDomain) -> RadarDomain {
        var c = d
        c.subdomains = []
        c.nameservers = []
        c.topInitiators = nil
        c.performance = RadarPerformance()
        c.source = []
        c.breaking = nil
        c.surrogates = nil
        c.resources = d.resources.map { r in
            RadarResource(rule: r.rule, type: r.type, cookies: r.cookies, fingerprinting: r.fingerprinting,
                          sites: r.sites, prevalence: r.prevalence)
        }
        return c
    }

    // MARK: - Files

    static func listFiles(_ o: Options) throws -> (domains: [(path: String, region: String?)], entities: [String]) {
        guard isDirectory(o.directory) else { throw FileError(path: o.directory, reason: "not a directory") }
        var domainsRoot = o.directory
        var entitiesRoot = o.entitiesDirectory
        if isDirectory(join(o.directory, "domains")) {
            domainsRoot = join(o.directory, "domains")
            if entitiesRoot == nil, isDirectory(join(o.directory, "entities")) { entitiesRoot = join(o.directory, "entities") }
        }
        if let e = entitiesRoot, !isDirectory(e) { throw FileError(path: e, reason: "not a directory") }
        var domainFiles: [(path: String, region: String?)] = []
        var seenRegions: Set<String> = []
        for name in try listing(domainsRoot) {
            let path = join(domainsRoot, name)
            if isDirectory(path) {
                if let regions = o.regions, !regions.contains(name) { continue }
                seenRegions.insert(name)
                for file in try listing(path) where file.hasSuffix(".json") { domainFiles.append((join(path, file), name)) }
            } else if name.hasSuffix(".json") {
                domainFiles.append((path, nil))
            }
        }
        if let regions = o.regions {
            let missing = regions.subtracting(seenRegions).sorted()
            if !missing.isEmpty { throw FileError(path: domainsRoot, reason: "no region folder \(missing.joined(separator: ", "))") }
        }
        let entityFiles = try entitiesRoot.map { root in try listing(root).filter { $0.hasSuffix(".json") }.map { join(root, $0) } } ?? []
        return (domainFiles, entityFiles)
    }

    /// Decodes on all cores into fixed slots (so the result does not depend on scheduling). A file that cannot
    /// be used is reported with its path and skipped, or with `strict` the first one in path order is thrown.
    static func decodeAll<Value>(_ items: [(path: String, region: String?)], strict: Bool,
                                 _ decode: @Sendable ((path: String, region: String?)) throws -> (Value, [DecodeIssue]))
        throws -> (values: [Value], paths: [String], issues: [DecodeIssue])
    {
        var slots = [Result<(Value, [DecodeIssue]), Error>?](repeating: nil, count: items.count)
        let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, items.count))
        slots.withUnsafeMutableBufferPointer { buffer in
            let out = buffer  // each index is written by exactly one worker
            DispatchQueue.concurrentPerform(iterations: workers) { w in
                var i = w
                while i < items.count {
                    out[i] = Result { try decode(items[i]) }
                    i += workers
                }
            }
        }
        var values: [Value] = []
        var paths: [String] = []
        var issues: [DecodeIssue] = []
        values.reserveCapacity(items.count)
        for (i, slot) in slots.enumerated() {
            switch slot! {
            case .success(let (value, fileIssues)):
                values.append(value)
                paths.append(items[i].path)
                issues += fileIssues
            case .failure(let error):
                if strict { throw error }
                issues.append(skipIssue(error, path: items[i].path))
            }
        }
        return (values, paths, issues)
    }

    static func skipIssue(_ error: Error, path: String) -> DecodeIssue {
        switch error {
        case TrackerDataError.invalid(var issue):
            issue.message += "; file skipped"
            return issue
        case TrackerDataError.invalidJSON(_, let e):
            return DecodeIssue(source: path, line: e.line, message: "invalid JSON at column \(e.column): \(e.message); file skipped")
        case let e as FileError:
            return DecodeIssue(source: path, path: .root, message: "\(e.reason); file skipped")
        default:
            return DecodeIssue(source: path, path: .root, message: "\(error); file skipped")
        }
    }

    static func listing(_ dir: String) throws -> [String] {
        do {
            return try FileManager.default.contentsOfDirectory(atPath: dir).filter { !$0.hasPrefix(".") }.sorted(by: byteOrder)
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
