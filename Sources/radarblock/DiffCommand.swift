// radarblock diff: what changed between two rule-set versions, and which requests now behave differently.

import FileIO
import Foundation
import Pipeline
import RuleBuilder
import RuleDiff
import RuleEngine
import StrictJSON

struct DiffCommand: Command {
    static let name = "diff"
    static let summary = "compare two releases, TDS files or rule lists: trackers, rules, flipped requests"
    static let help = """
    usage: radarblock diff OLD NEW [--format text|markdown|json] [--requests FILE.jsonl] [--pages DIR]
                           [--config FILE] [--mode faithful|ddg] [-o OUT]

    OLD and NEW are each a release directory (from `radarblock build`), a TDS file (converted first, with
    --config), or a rule-list JSON. The report has:
      inputs      the components that changed (TDS ETag or hash, temp list, allowlist, user sites, input hashes)
      trackers    added, removed and changed (default action, owner, rules added/removed/edited, reordered),
                  entities and CNAMEs (when both sides have a TDS)
      rules       WebKit rules added and removed (by canonical rule, with provenance) in the main list
      lists       per list (main parts, ctl-<ruleAction>.json click-to-load lists): added, removed or changed,
                  with identifiers, rule counts and rules added/removed; every list takes part in the requests
      requests    every request whose outcome (allowed, blocked, surrogate) differs, with the rule that decided
                  on each side. The requests come from --requests (JSONL as for `radarblock match`), from
                  --pages (saved HTML pages; a page's URL comes from its "saved from url=" comment, a NAME.html.url
                  file or <base href>), or by default from a corpus derived from both datasets: for every tracker
                  and rule, URLs its pattern matches and near misses, on first-party, same-entity and third-party sites.

    options:
      --format F        text (default), markdown (for a pull request or release note), json (for machines)
      --requests FILE   evaluate these requests instead of the derived corpus
      --pages DIR       evaluate the subresources of the saved pages in DIR (with --requests: both)
      --config FILE     privacy config used to convert a side given as a TDS file
      --mode MODE       conversion mode for TDS sides: faithful (default) or ddg
      -o, --output FILE write the report there (default stdout)

    exit status (as diff(1)): 0 no differences, 1 different, 2 trouble.
    """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try ParsedArguments.parse(arguments, options: [
            OptionSpec("--format"), OptionSpec("--requests"), OptionSpec("--pages"), OptionSpec("--config"),
            OptionSpec("--mode"), OptionSpec("-o", "--output"),
        ], positionals: 2...2)
        let format = args.value("--format") ?? "text"
        guard ["text", "markdown", "json"].contains(format) else { throw UsageError("--format must be text, markdown or json") }
        var options = DiffOptions()
        options.config = args.value("--config")
        if let m = args.value("--mode") {
            guard let mode = RuleBuildMode(rawValue: m) else { throw UsageError("--mode must be faithful or ddg") }
            options.mode = mode
        }
        do {
            var requests: [MatchRequest]? = nil
            if let file = args.value("--requests") { requests = try readRequests(file) }
            if let dir = args.value("--pages") { requests = (requests ?? []) + (try PageCorpus.requests(fromDirectory: dir)) }
            options.requests = requests
            let old = try loadSide(args.positionals[0], options: options)
            let new = try loadSide(args.positionals[1], options: options)
            let report = ReleaseComparison.compare(old, new, options: options)
            let text: String
            switch format {
            case "json": text = JSONWriter.string(report.json) + "\n"
            case "markdown": text = report.markdown
            default: text = report.text
            }
            try FileIO.write(text, to: args.value("--output") ?? "-")
            return report.isEmpty ? 0 : 1
        } catch {
            Console.error(String(describing: error))
            return 2
        }
    }

    /// Loads one side; every error names the file it is about (errors from deep inside a release name a
    /// file within it already).
    static func loadSide(_ path: String, options: DiffOptions) throws -> DiffSide {
        do {
            return try ReleaseComparison.load(path, options: options)
        } catch {
            let message = String(describing: error)
            if message.hasPrefix(path) { throw error }
            throw FileError(path: path, reason: message)
        }
    }

    /// JSONL requests; a bad line is an error naming the line (a diff must not silently check fewer requests).
    static func readRequests(_ path: String) throws -> [MatchRequest] {
        let text = try FileIO.readString(path)
        var out: [MatchRequest] = []
        // Split on LF bytes: Swift's Character view makes "\r\n" one Character, so CRLF files have no "\n" lines.
        for (i, bytes) in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            let trimmed = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty { continue }
            do {
                out.append(try MatchRequest.decode(try JSONParser.parse(String(trimmed))))
            } catch {
                throw FileError(path: path, reason: "line \(i + 1): \(error)")
            }
        }
        return out
    }
}
