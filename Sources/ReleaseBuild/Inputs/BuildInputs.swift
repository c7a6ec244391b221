// The build's first stage: its inputs fetched (files or URLs), what the manifest records of them, the copies a
// release keeps, whether they are unchanged since the previous release, and their decoding.

import ContentRules
import Digest
import AdblockSyntax
import FilterLists
import Release
import RuleCompiler
import TrackerData

/// Everything the pure part of the build needs, already fetched.
struct BuildInputs {
    var tds: (bytes: [UInt8], record: InputRecord)
    var config: (bytes: [UInt8], record: InputRecord)?
    var surrogates: (bytes: [UInt8], record: InputRecord)?
    var unprotected: (bytes: [UInt8], record: InputRecord)?
    /// The `--filter-list`s, fetched and parsed (a list no parser reads fails the build before anything else).
    var filterLists: [BuildFilterList] = []
}

/// One `--filter-list`: its bytes, what the manifest records of it, and the list parsed.
struct BuildFilterList {
    var bytes: [UInt8]
    var record: InputRecord
    var list: FilterList
}

extension BuildInputs {
    /// Fetches every input the options name (files or URLs); a failure is charged to its input.
    static func fetch(_ options: BuildOptions) throws -> BuildInputs {
        func fetch(_ source: String, component: BuildComponent) throws -> ([UInt8], InputRecord) {
            do {
                let f = try InputFetcher.fetch(source, options: options.fetch)
                let record = InputRecord(
                    source: f.source, etag: f.etag, lastModified: f.lastModified, sha256: f.sha256, bytes: f.bytes.count
                )
                return (f.bytes, record)
            } catch {
                throw BuildError(component: component, reason: String(describing: error))
            }
        }
        let tds: ([UInt8], InputRecord)
        if let generated = options.generatedTDS {
            tds = (
                generated.bytes,
                InputRecord(
                    source: generated.source, etag: nil, lastModified: nil,
                    sha256: Digest.hex(.sha256, generated.bytes), bytes: generated.bytes.count)
            )
        } else if let source = options.tds {
            tds = try fetch(source, component: .tds)
        } else {
            throw BuildError(component: .tds, reason: "no TDS given (--tds FILE|URL or --radar DIR)")
        }
        return BuildInputs(
            tds: tds,
            config: try options.config.map { try fetch($0, component: .config) },
            surrogates: try options.surrogates.map { try fetch($0, component: .surrogates) },
            unprotected: try options.unprotected.map { try fetch($0, component: .unprotected) },
            filterLists: try filterLists(options) { try fetch($0, component: .filterList) })
    }

    /// Each `--filter-list` fetched and parsed: a list no parser reads, two lists of one name (the provenance and
    /// the issues name a filter by its list's name and line), or with --strict a malformed line, fails the build
    /// naming the list (and the line).
    static func filterLists(
        _ options: BuildOptions, fetch: (String) throws -> ([UInt8], InputRecord)
    ) throws -> [BuildFilterList] {
        var seen: Set<String> = []
        return try options.filterLists.map { source in
            let (bytes, record) = try fetch(source)
            let name = listName(source)
            guard seen.insert(name).inserted else {
                throw BuildError(
                    component: .filterList,
                    reason: "\(source): a second list named \(name) (lists are named by their file name)")
            }
            let list: FilterList
            do { list = try FilterListParser.parse(bytes, name: name) } catch {
                throw BuildError(component: .filterList, reason: "\(source): \(error)")
            }
            if options.strict, let bad = list.issues.first(where: { $0.kind == .malformed }) {
                throw BuildError(component: .filterList, reason: "\(source): \(bad)")
            }
            return BuildFilterList(bytes: bytes, record: record, list: list)
        }
    }

    /// A list's name: the last part of its path or URL path (the query left out).
    static func listName(_ source: String) -> String {
        let path = source.split(separator: "?", maxSplits: 1).first.map(String.init) ?? source
        return path.split(separator: "/").last.map(String.init) ?? source
    }

    /// Unchanged = same input bytes, same tool, same options that shape the output.
    func isUnchanged(options: BuildOptions, previous: Manifest) -> Bool {
        guard previous.toolVersion == ToolVersion.current, previous.mode == options.mode else { return false }
        // A manifest from before targets existed was built for the default profile.
        guard
            (previous.targets.isEmpty ? [EngineProfile.default.name] : previous.targets) == options.targets.map(\.name)
        else { return false }
        guard previous.flags == flags(options) else { return false }
        let now = records.mapValues(\.sha256)
        let then = previous.inputs.mapValues(\.sha256)
        guard filterListRecords.map(\.record.sha256) == previous.filterLists.map(\.record.sha256) else { return false }
        return now == then && previous.inputs.values.allSatisfy { $0.fallback == nil }
    }

    /// The bundle reports trackers only when there is a bundle.
    func reportsTrackers(_ options: BuildOptions) -> Bool {
        options.reportTrackers && surrogates != nil
    }

    /// What the manifest records of each input.
    var records: [ReleaseInput: InputRecord] {
        var m: [ReleaseInput: InputRecord] = [.tds: tds.record]
        if let c = config { m[.config] = c.record }
        if let s = surrogates { m[.surrogates] = s.record }
        if let u = unprotected { m[.unprotected] = u.record }
        return m
    }

    /// What the manifest records of the filter lists, in order.
    var filterListRecords: [FilterListInput] {
        filterLists.enumerated().map {
            FilterListInput(name: $1.list.name, record: $1.record, copy: ReleaseFiles.inputFilterList($0 + 1))
        }
    }

    /// Input copies make the release self-contained for fallbacks and diffs.
    var copies: [(name: String, bytes: [UInt8])] {
        var files = [(name: ReleaseFiles.inputTDS, bytes: tds.bytes)]
        if let c = config { files.append((ReleaseFiles.inputConfig, c.bytes)) }
        if let s = surrogates { files.append((ReleaseFiles.inputSurrogates, s.bytes)) }
        if let u = unprotected { files.append((ReleaseFiles.inputUnprotected, u.bytes)) }
        for (input, list) in zip(filterListRecords, filterLists) { files.append((input.copy, list.bytes)) }
        return files
    }

    /// The options the manifest records (read back by `--if-changed`).
    func flags(_ options: BuildOptions) -> ManifestFlags {
        ManifestFlags(
            trackerReport: reportsTrackers(options), optimized: options.optimize,
            perTrackerExemptions: options.sameEntity == .perTracker)
    }

    /// Decodes the TDS, config and unprotected sites; a failure, or with --strict any issue, is charged to its input.
    func decode(options: BuildOptions, warnings: inout [String], progress: ReleaseBuilder.Progress) throws
        -> ConversionInputs
    {
        progress("reading the inputs")
        let decoded: ConversionInputs
        do {
            decoded = try ConversionInputs.decode(
                tds: .init(bytes: tds.bytes, name: tds.record.source),
                config: config.map { .init(bytes: $0.bytes, name: $0.record.source) },
                unprotected: unprotected.map { .init(bytes: $0.bytes, name: $0.record.source) },
                strict: options.strict)
        } catch let e as ConversionInputs.Failure {
            throw BuildError(component: BuildComponent(e.component), reason: String(describing: e.underlying))
        }
        // With --strict, any reported issue is charged to its input.
        let charged: [(BuildComponent, [DecodeIssue])] = [
            (.tds, decoded.tdsIssues), (.config, decoded.configIssues), (.unprotected, decoded.unprotectedIssues),
        ]
        for (component, issues) in charged {
            if options.strict, let first = issues.first {
                throw BuildError(component: component, reason: first.description)
            }
            warnings += issues.map(\.description)
        }
        return decoded
    }
}
