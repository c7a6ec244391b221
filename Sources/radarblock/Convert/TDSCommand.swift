// radarblock tds: Tracker Radar domain + entity files -> a TDS v5 (policy, surrogate mapping, overrides).

import FileIO
import Foundation
import ReleaseBuild
import StrictJSON
import TDSGenerator
import TrackerData

struct TDSCommand: Command {
    static let name = "tds"
    static let summary = "build a tracker data set (TDS v5) from Tracker Radar files"
    enum Option {
        static let radar = OptionSpec(
            "--radar", value: "DIR",
            help: """
                tracker-radar checkout or domains folder; several regions are merged (largest
                numbers win, see TrackerData's RadarLoader)
                """)
        static let entities = OptionSpec("--entities", value: "DIR", help: "entity files (default: DIR/entities)")
        static let region = OptionSpec(
            "--region", value: "R", repeatable: true, help: "read only this region folder (repeatable; default: all)")
        static let policy = OptionSpec(
            "--policy", value: "FILE",
            help: "policy JSON (default: the built-in defaults = data/policy.json; docs/tds-policy.md)")
        static let mapping = OptionSpec(
            "--mapping", value: "FILE", help: "tracker-surrogates mapping.json (surrogate and block-ctl-* rules)")
        static let overrides = OptionSpec(
            "--overrides", value: "FILE",
            help: """
                human decisions (force default, remove, add/drop rules, exceptions, options), applied
                last and listed in --report (see data/overrides.example.json)
                """)
        static let explain = OptionSpec(
            "--explain", value: "DOMAIN", repeatable: true,
            help: """
                print why DOMAIN is or is not a tracker and where each rule came from (stdout);
                writes no TDS unless -o is given
                """)
        static let report = OptionSpec(
            "--report", value: "FILE",
            help: """
                write the generation report (every decision with its reason, rule provenance,
                overrides applied, issues) as JSON
                """)
        static let compare = OptionSpec(
            "--compare", value: "TDS",
            help: """
                print agreement with a reference TDS on which domains are trackers and with which
                default (policy decisions, every radar domain), with every disagreement and its reason
                """)
        static let strict = OptionSpec(
            "--strict",
            help: """
                a malformed radar file fails the run (default: reported by path and skipped); a
                failed strict run writes no TDS (-o OUT is left as it was; --report still says why)
                """)
        static let output = OptionSpec.output(
            #"output TDS, "-" for stdout (default, unless --explain/--compare); written atomically"#)
    }

    static let grammar = CommandGrammar(
        forms: [
            "--radar DIR [--entities DIR] [--region R]... [--policy FILE] [--mapping FILE]",
            "--radar DIR [--overrides FILE] [--explain DOMAIN] [--report FILE] [--compare TDS] [--strict] [-o OUT]",
        ],
        parts: [
            .text(
                """
                Reads Tracker Radar domain files (DIR/domains/<REGION>/*.json, or a domains folder) and entity files
                (DIR/entities, or --entities), decides with the policy which domains are trackers and with which
                default, derives rules from their resources, adds surrogate rules from tracker-surrogates' mapping.json,
                applies the overrides, and writes the TDS (sorted keys, rules most specific first; same inputs, same \
                bytes).
                """),
            .options(
                "options",
                [
                    Option.radar, Option.entities, Option.region, Option.policy, Option.mapping, Option.overrides,
                    Option.explain, Option.report, Option.compare, Option.strict, Option.output,
                ]),
            .text(
                """
                Radar files that are unusable, rule regexes WebKit rejects, overrides that do not apply are reported on
                stderr (and in --report); exit status 1 when --strict and anything was reported.
                """),
        ])

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try parse(arguments)
        let radarDir = try args.required(Option.radar)
        let strict = args.has(Option.strict)
        let regions = args.all(Option.region)
        let files = TDSGeneratorFiles(
            radar: RadarIngest.Options(
                directory: radarDir, entitiesDirectory: args.value(Option.entities),
                regions: regions.isEmpty ? nil : Set(regions), strict: strict),
            policyPath: args.value(Option.policy), mappingPath: args.value(Option.mapping),
            overridesPath: args.value(Option.overrides),
            webKit: RuleRegex.webKit)

        let (generation, policy): (TDSGeneration, TDSPolicy)
        do {
            (generation, policy) = try TDSGenerator.generate(files: files)
        } catch let e as TrackerDataError {
            throw InputError(e.description)
        }
        for issue in generation.issues { Console.warning(issue.description) }
        if !generation.notes.isEmpty {
            Console.note(
                "radarblock: \(generation.notes.count) note(s) (mapping entries for non-trackers, cnames into "
                    + "non-trackers, owners without entity files)"
                    + (args.value(Option.report).map { ": listed in \($0)" } ?? ": run with --report FILE to list them")
            )
        }

        let explain = args.all(Option.explain)
        for domain in explain { print(generation.explain(domain, policy: policy), terminator: "") }
        var status = ExitCode.success
        if let referencePath = args.value(Option.compare) {
            let (reference, refIssues) = try TrackerDataSet.load(path: referencePath)
            for issue in refIssues { Console.warning(issue.description) }
            print(TDSAgreement.compare(generation, reference: reference).text, terminator: "")
        }
        if let report = args.value(Option.report) {
            try FileIO.write(
                JSONWriter.bytes(generation.reportJSON(policy: policy), options: [.sortedKeys]) + [0x0A], to: report)
        }
        // A strict run that failed leaves no TDS behind: a later step must not pick up a rejected one.
        let failedStrict = strict && !generation.issues.isEmpty
        let output = args.value(Option.output) ?? ((explain.isEmpty && args.value(Option.compare) == nil) ? "-" : nil)
        if failedStrict, let output {
            Console.note(
                "radarblock: --strict: \(generation.issues.count) issue(s); "
                    + (output == "-" ? "no TDS written to stdout" : "\(output) not written")
            )
        }
        if let output, !failedStrict {
            try FileIO.write(generation.tds.canonicalBytes + [0x0A], to: output)
            if output != "-" {
                let t = generation.tds.trackers.values
                let blocking = t.filter { $0.defaultAction == .block }.count
                let ignoring = t.filter { $0.defaultAction == .ignore }.count
                let radarDomains = generation.decisions.filter { $0.radar != nil }.count
                Console.note(
                    "\(output): \(t.count) trackers (\(blocking) block, \(ignoring) ignore), "
                        + "\(generation.tds.ruleCount) rules, \(generation.tds.entities.count) entities, "
                        + "\(generation.tds.cnames.count) cnames from \(radarDomains) radar domains"
                        + (generation.issues.isEmpty ? "" : "; \(generation.issues.count) issue(s) reported"))
            }
        }
        if failedStrict { status = ExitCode.failure }
        return status
    }
}
