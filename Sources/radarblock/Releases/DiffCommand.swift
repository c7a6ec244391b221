// radarblock diff: what changed between two rule-set versions, and which requests now behave differently.

import FileIO
import Foundation
import Release
import ReleaseDiff
import RuleBuilder
import RuleDiff
import RuleEngine
import StrictJSON

struct DiffCommand: Command {
    static let name = "diff"
    static let summary = "compare two releases, TDS files or rule lists: trackers, rules, flipped requests"
    /// The command's options: its grammar lists them and `run` reads them, so a key is spelled once.
    enum Option {
        static let format = OptionSpec(
            "--format", value: "F",
            help: """
                text (default), markdown (for a pull request or release note), json (for machines), html (one
                self-contained page: the summary as charts, every flip in a table filtered by tracker, entity,
                outcome and resource type; nothing is fetched)
                """)
        static let requests = OptionSpec(
            "--requests", value: "FILE", help: "evaluate these requests instead of the derived corpus")
        static let pages = OptionSpec(
            "--pages", value: "DIR", help: "evaluate the subresources of the saved pages in DIR (with --requests: both)"
        )
        static let config = OptionSpec(
            "--config", value: "FILE", help: "privacy config used to convert a side given as a TDS file")
        static let mode = OptionSpec(
            "--mode", value: "MODE", help: "conversion mode for TDS sides: faithful (default) or ddg")
        static let saveCorpus = OptionSpec(
            "--save-corpus", value: "FILE",
            help: """
                also write the requests checked to FILE as JSONL (`radarblock match --requests`
                input), e.g. to ask `match --explain` about the derived corpus
                """)
        static let full = OptionSpec(
            "--full",
            help: """
                text and markdown: list every flip and every change after the summary (by default they
                give the summary: the verdict, flips per entity and per tracker, a few examples per
                tracker; Markdown then fits one pull-request comment, at most \(ReportDetail.markdownLimit) characters)
                """)
        static let maxFlips = OptionSpec(
            "--max-flips", value: "N",
            help: "text and markdown: the summary, then the first N flips (with both sides' rules)")
        static let output = OptionSpec.output("write the report there (default stdout)")
    }

    static let grammar = CommandGrammar(
        forms: [
            "OLD NEW [--format text|markdown|json|html] [--requests FILE.jsonl] [--pages DIR] [--config FILE] [--mode"
                + " faithful|ddg]",
            "OLD NEW [--full | --max-flips N] [--save-corpus FILE] [-o OUT]",
        ],
        positionals: ["OLD", "NEW"], positionalCount: 2...2,
        parts: [
            .text(
                """
                OLD and NEW are each a release directory (from `radarblock build`), a TDS file (converted first, with
                --config), a rule-list JSON, or an Adblock Plus / uBlock Origin filter list (converted as `convert
                --filter-list` converts it; a file is a filter list unless it starts with `{` or `[`, or when its
                first line is a header such as `[Adblock Plus 2.0]`). The report has:
                  inputs      the components that changed (TDS ETag or hash, temp list, allowlist, user sites, input\
                 hashes)
                  trackers    added, removed and changed (default action, owner, rules added/removed/edited, reordered),
                              entities and CNAMEs (when both sides have a TDS)
                  rules       WebKit rules added and removed (by canonical rule, with provenance) in the main list
                  filters     (filter lists) filters added and removed, by their text, each with its list and line
                  lists       per list (main parts, \(ReleaseFiles.clickToLoadRules("<ruleAction>")) click-to-load\
                 lists, \(ReleaseFiles.cookiePopupRules)): added,\
                 removed or
                              changed, with identifiers, rule counts and rules added/removed; element hiding also by
                              selector ("selectorsAdded"/"selectorsRemoved": each selector with the trigger that says\
                 where
                              it is hidden); every list that can block takes part in the requests\
                 (\(ReleaseFiles.cookiePopupRules) blocks\
                 nothing)
                  requests    every request whose outcome (allowed, blocked, surrogate) differs, with the rule that\
                 decided
                              on each side (the last matching block, or the ignore-previous-rules that let it
                              through, named by its provenance). The requests come from --requests (JSONL as for\
                 `radarblock match`), from
                              --pages (saved HTML pages; a page's URL comes from its "saved from url=" comment, a\
                 NAME.html.url
                              file or <base href>), or by default from a corpus derived from both datasets: for every\
                 tracker
                              and rule, URLs its pattern matches and near misses, on first-party, same-entity and\
                 third-party sites;
                              for filter lists, for every network filter, URLs it matches and near misses, first- and
                              third-party, on its $domain sites and others, of its types and others (the deciding rule
                              named by its filter, list and line).
                """),
            .options(
                "options",
                [
                    Option.format,
                    Option.requests,
                    Option.pages,
                    Option.config,
                    Option.mode,
                    Option.saveCorpus,
                    Option.full,
                    Option.maxFlips,
                    Option.output,
                ]),
            .text(
                """
                The corpus streams through in chunks of \(DecisionDiff.chunkSize) requests on every core: while one is\
                 answered,
                the flips of the one before are recorded and the next one is read. Memory holds two chunks, the flips\
                 of one,
                and \(FlipLog.defaultPageBytes >> 20) MiB of flipped requests, whatever the size of --requests:\
                 further flips go
                to an unlinked temporary file in $TMPDIR (default /tmp), and the report is written a page of flips at\
                 a time (to
                a temporary file renamed at the end). Progress goes to stderr when it is a terminal.

                exit status (as diff(1)): 0 no differences, 1 different, 2 trouble.
                """),
        ])

    /// What `--format` asks for.
    enum Format: String {
        case text, markdown, json, html
    }

    static func parseFormat(_ args: ParsedArguments) throws -> Format {
        let value = args.value(Option.format) ?? Format.text.rawValue
        guard let format = Format(rawValue: value) else {
            throw UsageError("--format must be text, markdown, json or html")
        }
        return format
    }

    /// --full or --max-flips N (one of them), else the bounded summary.
    static func reportDetail(_ args: ParsedArguments) throws -> ReportDetail {
        guard let n = args.value(Option.maxFlips) else { return args.has(Option.full) ? .full : .summary }
        if args.has(Option.full) { throw UsageError("give --full or --max-flips N, not both") }
        guard let v = Int(n), v >= 0 else { throw UsageError("--max-flips must be a whole number, not \(quoted(n))") }
        return .flips(v)
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try parse(arguments)
        let format = try parseFormat(args)
        let detail = try reportDetail(args)
        var options = DiffOptions()
        options.config = args.value(Option.config)
        if let m = args.value(Option.mode) {
            guard let mode = RuleBuildMode(rawValue: m) else { throw UsageError("--mode must be faithful or ddg") }
            options.mode = mode
        }
        do {
            var streams: [RequestStream] = []
            var file: JSONLRequests? = nil
            if let path = args.value(Option.requests) {
                file = try JSONLRequests(path: path, shrinkStatus: ExitCode.trouble)
                streams.append(file!)
            }
            defer { file?.close() }
            if let dir = args.value(Option.pages) {
                streams.append(ArrayRequests(try PageCorpus.requests(fromDirectory: dir)))
            }
            let (old, new) = try ReleaseComparison.loadBoth(args.positionals[0], args.positionals[1], options: options)
            for note in old.notes + new.notes { Console.note(note) }
            var structure: ReleaseComparison.StructureInBackground? = nil
            let corpus = CorpusDescription(
                kind: streams.isEmpty ? .derived : streams.count == 2 ? .mixed : file != nil ? .requests : .pages,
                filterLists: !(old.filterLists.isEmpty && new.filterLists.isEmpty))
            if streams.isEmpty {
                let (corpus, parts) = ReleaseComparison.derivedCorpusAndStructure(old, new)
                streams.append(corpus)
                structure = parts
            }
            var requests: RequestStream = ChainedRequests(streams)
            var saved: SavedRequests? = nil
            if let path = args.value(Option.saveCorpus) {
                saved = try SavedRequests(requests, path: path)
                requests = saved!
            }
            let progress = ProgressLine()
            var report = try ReleaseComparison.compare(old, new, requests: requests, structure: structure) { checked in
                progress.update("\(checked) requests checked")
            }
            report.corpus = corpus
            progress.finish()
            try saved?.commit()
            // Streamed: a large corpus's report is never held whole.
            let output = try FileIO.Output(path: args.value(Option.output) ?? "-")
            try FileIO.writingBehind(output) { writer in
                switch format {
                case .json:
                    try report.writeJSON { try writer.write($0) }
                    try writer.write([0x0A])
                case .markdown: try report.writeMarkdown(detail: detail) { try writer.write($0) }
                case .html: try report.writeHTML { try writer.write($0) }
                case .text: try report.writeText(detail: detail) { try writer.write($0) }
                }
            }
            try output.commit()
            exitKeeping(old, new, report, status: report.isEmpty ? ExitCode.success : ExitCode.different)
        } catch {
            Console.error(String(describing: error))
            return ExitCode.trouble
        }
    }
}
