// `radarblock build`'s grammar: its options and their help, in one table (CommandGrammar).

import ContentRules
import Release

extension BuildCommand {
    /// The command's options: its grammar lists them and `run` reads them, so a key is spelled once.
    enum Option {
        static let tds = OptionSpec(
            "--tds", value: "FILE|URL",
            help: "tracker data set; URLs are fetched with conditional requests (ETag) when --cache is set")
        static let radar = OptionSpec(
            "--radar", value: "DIR",
            help: """
                build the TDS from a Tracker Radar checkout instead (see `radarblock tds`),
                with --entities, --policy, --mapping and --overrides as for `radarblock tds`
                """)
        static let config = OptionSpec("--config", value: "FILE|URL", help: "privacy configuration v4")
        static let surrogates = OptionSpec("--surrogates", value: "FILE|URL", help: "surrogates.txt")
        static let unprotected = OptionSpec(
            "--unprotected", value: "FILE|URL",
            help: "user-unprotected sites, one host per line (each with its subdomains)")
        static let entities = OptionSpec(
            "--entities", value: "DIR", help: "with --radar: entity files (see `radarblock tds --help`)")
        static let policy = OptionSpec(
            "--policy", value: "FILE", help: "with --radar: the policy (see `radarblock tds --help`)")
        static let mapping = OptionSpec(
            "--mapping", value: "FILE",
            help: "with --radar: tracker-surrogates mapping.json (see `radarblock tds --help`)")
        static let overrides = OptionSpec(
            "--overrides", value: "FILE", help: "with --radar: human decisions (see `radarblock tds --help`)")
        static let output = OptionSpec.output(
            "the release directory to write (replaced as a whole), or a link to one", value: "DIR")
        static let force = OptionSpec(
            "--force", help: "replace DIR even when it is neither empty nor a radarblock release")
        static let noReportTrackers = OptionSpec(
            "--no-report-trackers",
            help: """
                \(ReleaseFiles.surrogatesJS) does not dispatch radarblock:tracker for every tracker request (by default
                it does, and the manifest says so: counts.trackerReport)
                """)
        static let reportTrackers = TrackerReportFlag.reportTrackers
        static let previous = OptionSpec(
            "--previous", value: "DIR",
            help: """
                the previous release: write changes.md / changes.json against it. When WebKitGTK is
                installed, also measure what WebKit pays to compile the new release: every list an app
                compiles (rules*.json of the first target and the click-to-load lists), each in a fresh
                `radarblock compile --engine webkit` process; the manifest records it as
                "webkitCompileCost": {webkitVersion, seconds, cpuSeconds, memoryKB, bytes, lists: [{list,
                seconds, cpuSeconds, memoryKB, bytes}]} (totals: time and size summed over the lists,
                memory the largest list's; seconds = wall time of WebKit's compile inside the process,
                cpuSeconds = its CPU time, memoryKB = peak RSS above a one-rule list's, bytes = WebKit's
                file). Wall-clock figures, like webkitVerification. changes.md shows the change against
                the previous release's recorded cost (or, when it recorded none for this WebKit version,
                its lists compiled now). Without WebKitGTK nothing is measured; a list WebKit cannot
                compile is a warning (with --max-compile-regression, the build fails)
                """)
        static let maxCompileRegression = OptionSpec(
            "--max-compile-regression", value: "PCT",
            help: """
                with --previous: refuse the release (exit 1, 5 with --detailed-exit; nothing published: DIR, and the
                `current` link, stay as they were) when the new release's WebKit compile time (CPU) or
                peak memory is more than PCT percent above the previous release's; needs WebKitGTK.
                A release over the limit is measured once more and judged by the cheaper of the two
                runs (a busy machine only slows a compile); rises under 0.05 s CPU or 4 MiB never
                count. Keep PCT above the measurement's noise (about 10% for CPU time)
                """)
        static let maxTrackerRemoval = OptionSpec(
            "--max-tracker-removal", value: "PCT",
            help: """
                with --previous: refuse the release (exit 1, 5 with --detailed-exit; nothing published)
                when more than PCT percent of the previous release's trackers are gone from the new TDS (a truncated or
                stale upstream file looks like that); the message also names a TDS older than the
                previous release's (by the HTTP Last-Modified of both, when both were fetched)
                """)
        static let maxNewlyAllowed = OptionSpec(
            "--max-newly-allowed", value: "N",
            help: """
                with --previous: refuse the release (exit 1, 5 with --detailed-exit; nothing published) when more than N
                requests of the derived corpus (changes.md's) were blocked by the previous release and
                are allowed by the new one
                """)
        static let noCompileCost = OptionSpec(
            "--no-compile-cost", help: "with --previous: do not measure WebKit's compile cost")
        static let detailedExit = OptionSpec(
            "--detailed-exit",
            help: """
                exit statuses that tell the outcomes apart, for a job that schedules builds: 3 unchanged
                (--if-changed), 4 built and published from a fallback, 5 refused by a gate (without it
                these exit 0, 0 and 1, as every command does)
                """)
        static let ifChanged = OptionSpec(
            "--if-changed",
            help: """
                with --previous: when every input is byte-identical to the previous release's (same
                tool version and mode), do nothing, say so and exit 0
                """)
        static let fallback = OptionSpec(
            "--fallback", value: "DIR",
            help: """
                when the build fails, retry as DuckDuckGo's apps do: the TDS of release DIR, then without
                the config, the user's sites, the surrogates; the manifest records what was replaced or dropped
                """)
        static let maxRules = OptionSpec(
            "--max-rules", value: "N",
            help: "rules per list (default: the target's limit, \(EngineProfile.webKitRuleLimit); "
                + "safari-14: \(EngineProfile.safari14RuleLimit))")
        static let target = OptionSpec.target(
            "repeatable: one list set per target, each split at that engine's rule limit; what the engine lacks is"
                + " encoded equivalently (top-document as document + load-context top-frame) or the rule is left out"
                + " and reported in \(ReleaseFiles.issues) (--strict: the build fails)",
            repeatable: true, default: .portable)
        static let mode = OptionSpec(
            "--mode", value: "MODE", help: "faithful (default) or ddg (see `radarblock convert --help`)")
        static let noOptimize = OptionSpec(
            "--no-optimize",
            help: """
                skip the optimization stage (see `radarblock convert --help`); the manifest's
                counts.optimized says which one a release had
                """)
        static let perTrackerExemptions = OptionSpec(
            "--per-tracker-exemptions",
            help: """
                one same-entity exemption per tracker, none shared (see `radarblock convert --help`);
                counts.perTrackerExemptions = 1 in the manifest
                """)
        static let singleList = OptionSpec(
            "--single-list",
            help: """
                one main list (per target and rule limit) for apps that can load only one: only the
                entity whose exemptions cost most shares one, the others keep one per tracker; by default
                every large entity gets a list of its own with one shared exemption
                """)
        static let name = OptionSpec(
            "--name", value: "NAME",
            help: """
                identifier name (default "tds")
                """)
        static let strict = OptionSpec("--strict", help: "any input problem or conversion issue fails the build")
        static let verifyWebkit = OptionSpec(
            "--verify-webkit",
            help: """
                also compile every list with WebKitGTK's own compiler (loaded at run time) and fail the
                build if WebKit rejects one; the manifest records the WebKit version and compile times
                (the only non-deterministic part of a manifest)
                """)
        static let cache = OptionSpec(
            "--cache", value: "DIR",
            help: "cache for downloaded inputs (conditional requests: If-None-Match / If-Modified-Since)")
        static let timeout = OptionSpec(
            "--timeout", value: "SECONDS", help: "per-request timeout for URLs, covering the whole body (default 30)")
        static let maxDownloadSize = OptionSpec(
            "--max-download-size", value: "BYTES",
            help: """
                largest body accepted from a URL, counted after gzip/deflate decoding, with an
                optional k, M or G suffix (powers of 1024; default 64M); a larger body fails the
                build (component named) without retrying
                """)
        static let retries = OptionSpec(
            "--retries", value: "N", help: "retries for URLs with exponential backoff (default 3)")
    }

    static let grammar = CommandGrammar(
        forms: [
            "(--tds FILE|URL | --radar DIR) --out DIR [--config FILE|URL] [--surrogates FILE|URL] [--unprotected"
                + " FILE|URL] [--previous DIR] [options]"
        ],
        parts: [
            .text(
                """
                Writes the release into DIR atomically: the files are written into a temporary sibling directory which
                then replaces DIR in one rename. A failed or interrupted build leaves DIR exactly as it was.
                DIR is replaced only when it is absent, empty or a radarblock release (its \(ReleaseFiles.manifest)\
                 says so);
                anything else is refused unless --force is given. When DIR is a symbolic link (the layout
                `current -> releases/<identifier>`), it stays one: the new release is written beside the link's target\
                 as
                releases/<identifier> and the link is swapped to it in one rename; the old release stays where it was.
                A lock file (.radarblock-lock-<name> beside DIR) makes a second build of the same DIR fail at once.

                release files:
                  rules.json            the WebKit content rule list (canonical, one rule per line)
                  rules.rbc             the same list compiled to radarblock bytecode (see `radarblock inspect`)
                  rules-N.json/.rbc     further lists when the rules exceed --max-rules or the target's rule limit\
                 (split by
                                        tracker, never by index; the exceptions are repeated in every list so each one\
                 is
                                        correct on its own)
                  rules.T.json/.rbc, rules.T-N.json/.rbc
                                        the list set of each further --target T (the first --target's lists are\
                 rules*.json);
                                        \(ReleaseFiles.manifest) lists every list with its "target" and names the\
                 targets in\
                 "targets"
                  \(ReleaseFiles.clickToLoadList("<ruleAction>").synopsis)
                                        one click-to-load list per supported rule action of the config's clickToLoad\
                 feature
                                        (enabled, entity enabled, action listed): what that action blocks, which\
                 rules.json
                                        does not block; an app leaves it out for a tab where the user clicked to load
                  \(ReleaseFiles.provenance)       where each rule of rules.json comes from
                  \(ReleaseFiles.surrogatesJS)         the surrogate bundle (with --surrogates; every body is parsed\
                 with\
                 JavaScriptCore, one
                                        that does not parse is dropped and reported in \(ReleaseFiles.issues), an\
                 error with\
                 --strict);
                                        it also reports every tracker request unless --no-report-trackers (see\
                 `surrogates --help`)
                  \(ReleaseFiles.attributionList.synopsis), \(ReleaseFiles.attributionTDS)
                                        the ad-click attribution list (config adClickAttribution enabled and naming a\
                 tracker):
                                        the trackers its allowlist names, which rules.json leaves out, and the TDS it\
                 is built
                                        from; manifest role "ad-click-attribution". See `radarblock attribution --help`
                  \(ReleaseFiles.cookiePopupList.synopsis), \(ReleaseFiles.cookiePopupScript)
                                        the cookie pop-up list of a TDS v7/v8 (cpm.filterList, Adblock Plus element\
                 hiding),
                                        manifest role "cpm", when the config's autoconsent feature and its filterlist
                                        sub-feature are enabled (or without --config);\
                 \(ReleaseFiles.cookiePopupScript): the filters\
                 only the
                                        script layer applies (appended to \(ReleaseFiles.surrogatesJS)). See README,\
                 "TDS versions"
                  \(ReleaseFiles.issues)            every input problem and conversion issue, one per line (nothing is\
                 dropped\
                 silently)
                  input-*.json/.txt     copies of the inputs, for fallbacks and diffs
                  \(ReleaseFiles.manifest)         identifier, versions, each input's source, ETag, Last-Modified and\
                 sha256, each
                                        output's sha256 and size, counts and compile figures, and `lists`: every rule
                                        list in order (identifier, rules, rbc, ruleCount, sha256; click-to-load lists\
                 also
                                        ruleAction, entity, provenance; the cookie pop-up list role, provenance, script)
                  changes.md, changes.json, changes.html   with --previous: what changed since that release (see
                                        `radarblock diff`; changes.html is its --format html page), and
                                        WebKit's compile cost against the previous release's (below)
                """),
            .options(
                "inputs",
                [
                    Option.tds,
                    Option.radar,
                    Option.config,
                    Option.surrogates,
                    Option.unprotected,
                    Option.entities,
                    Option.policy,
                    Option.mapping,
                    Option.overrides,
                ]),
            .options(
                "options",
                [
                    Option.output,
                    Option.force,
                    Option.noReportTrackers,
                    Option.reportTrackers,
                    Option.previous,
                    Option.maxCompileRegression,
                    Option.maxTrackerRemoval,
                    Option.maxNewlyAllowed,
                    Option.noCompileCost,
                    Option.ifChanged,
                    Option.detailedExit,
                    Option.fallback,
                    Option.maxRules,
                    Option.target,
                    Option.mode,
                    Option.noOptimize,
                    Option.perTrackerExemptions,
                    Option.singleList,
                    Option.name,
                    Option.strict,
                    Option.verifyWebkit,
                    Option.cache,
                    Option.timeout,
                    Option.maxDownloadSize,
                    Option.retries,
                ]),
            BudgetOptions.part,
            .text(
                """
                A rule whose own automaton is over --max-dfa-states or --max-dfa-mb is dropped from the release and
                reported in \(ReleaseFiles.issues) (with --strict the build fails instead); the rest of the list is\
                 built as usual.
                Over --max-total-dfa-states or --max-compile-seconds no single rule is to blame: the build fails.

                A release --previous names that is damaged (a file differs from its manifest's size or sha256, or the
                manifest does not parse) is reported as a warning and left aside: no changes files, no gates, no
                --if-changed; the new release is built and published as a first one.

                exit status: 0 built (or unchanged with --if-changed, or published from a fallback), 1 the build\
                 failed (the message names the component: tds, config, surrogates, unprotected, rules) or a gate\
                 refused it
                (--max-compile-regression, --max-tracker-removal, --max-newly-allowed; nothing published), 2 usage\
                 error.
                With --detailed-exit: 3 unchanged, 4 built and published from a fallback (--fallback: the manifest's\
                 inputs
                say what was replaced or dropped), 5 refused by a gate.
                """),
        ])
}
