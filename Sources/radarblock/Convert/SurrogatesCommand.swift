// radarblock surrogates: TDS + surrogates.txt (+ config) -> surrogates.js, the document-start user script
// that replaces blocked tracker scripts with their surrogates.

import FileIO
import Release
import Surrogates
import TrackerData

struct SurrogatesCommand: Command {
    static let name = "surrogates"
    static let summary = "build the JavaScript surrogate bundle (\(ReleaseFiles.surrogatesJS))"
    /// The command's options: its grammar lists them and `run` reads them, so a key is spelled once.
    enum Option {
        static let tds = OptionSpec("--tds", value: "FILE", help: "tracker data set (TDS v5 JSON)")
        static let surrogates = OptionSpec("--surrogates", value: "FILE", help: "surrogates.txt")
        static let config = OptionSpec(
            "--config", value: "FILE",
            help: """
                privacy configuration (temp-unprotected sites, tracker allowlist, click-to-load: see
                window.radarblockClickToLoad in the README; contentBlocking off makes the bundle inert)
                """)
        static let unprotected = OptionSpec(
            "--unprotected", value: "FILE", help: "user-unprotected sites (each with its subdomains)")
        static let strict = OptionSpec(
            "--strict",
            help: """
                a surrogate named by the TDS but missing from surrogates.txt is an error, and so is
                any TDS or config problem the decoders would otherwise skip (default: warnings)
                """)
        static let allTrackers = OptionSpec(
            "--all-trackers", help: "carry every tracker, not only those with surrogates (for testing the matcher)")
        static let noReportTrackers = OptionSpec(
            "--no-report-trackers",
            help: """
                do not report tracker requests. By default the bundle reports every tracker request
                the page makes (elements, src/href changes, fetch, XMLHttpRequest, Resource Timing) as
                a CustomEvent "\(SurrogateBundleBuilder.trackerEventName)" on window with detail {url,
                pageUrl, tracker, entity, displayName, category, blocked, reason, surrogate}, once per
                distinct URL in each document; reason is rule, default, ignore-rule, first-party,
                tracker-allowlist, unprotected-site, request-blocklist, click-to-load or surrogate. It
                then carries every tracker, in tables the page reads one host at a time (no start-up
                cost per tracker)
                """)
        static let reportTrackers = TrackerReportFlag.reportTrackers
        static let output = OptionSpec.output(#"output file, "-" for stdout (default)"#)
    }

    static let grammar = CommandGrammar(
        forms: [
            "--tds FILE --surrogates FILE [--config FILE] [--unprotected FILE] [--strict] [--all-trackers]"
                + " [--no-report-trackers] [-o OUT.js]"
        ],
        parts: [
            .text(
                """
                Writes one self-contained script to inject at document start in every frame (page content world). When a
                script element's load fails because the rule list blocked it, and the TDS decision for that URL on the\
                 page
                is a surrogate rule, it runs the surrogate (at most once per document), suppresses the error, fires the
                element's load event and reports it as a CustomEvent "\(SurrogateBundleBuilder.eventName)" on window\
                 with
                detail {url, name, tracker, pageUrl, blocked, executed, error}. A parser-blocking script gets its
                surrogate when it is inserted (WebKit does not wait for a blocked one), and the report follows its fate.
                """),
            .options(
                "options",
                [
                    Option.tds,
                    Option.surrogates,
                    Option.config,
                    Option.unprotected,
                    Option.strict,
                    Option.allTrackers,
                    Option.noReportTrackers,
                    Option.reportTrackers,
                    Option.output,
                ]),
            .text(
                """
                Every surrogate body is checked with JavaScriptCore's parser (WebKitGTK's libjavascriptcoregtk-6.0,\
                 loaded at
                run time) as the function it becomes. A body that does not parse, or that cannot be wrapped safely, is\
                 dropped
                with an error naming it and its line (exit status 1; the bundle is still written without it, and its\
                 rules
                stay plain blocks; with --strict nothing is written). The finished bundle is parsed once more.
                """),
        ])

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try parse(arguments)
        let tdsPath = try args.required(Option.tds)
        let surrogatesPath = try args.required(Option.surrogates)
        let strict = args.has(Option.strict)
        let output = args.value(Option.output) ?? "-"

        let inputs = try ConversionInputs.load(
            tdsPath: tdsPath, configPath: args.value(Option.config),
            unprotectedPath: args.value(Option.unprotected), strict: strict)
        inputs.issues.forEach { Console.warning($0.description) }
        let (tds, config, unprotected) = (inputs.tds, inputs.config, inputs.unprotected)
        let scripts = try SurrogatesFile.parse(bytes: FileIO.read(surrogatesPath), source: surrogatesPath)

        let bundle = try SurrogateBundleBuilder.build(
            tds: tds, tdsSource: tdsPath, scripts: scripts, surrogatesSource: surrogatesPath,
            config: config, unprotected: unprotected,
            options: SurrogateBundleOptions(
                strict: strict, scope: args.has(Option.allTrackers) ? .allTrackers : .surrogateTrackers,
                reportTrackers: try TrackerReportFlag.parse(args, off: Option.noReportTrackers)))
        bundle.warnings.forEach { Console.warning($0) }
        bundle.errors.forEach { Console.error($0) }
        try FileIO.write(bundle.bytes, to: output)
        if output != "-" {
            Console.note(
                "surrogates: \(bundle.surrogateNames.count) surrogates, \(bundle.surrogateTrackerCount) surrogate"
                    + " trackers, "
                    + "\(bundle.cnameCount) CNAME aliases, \(bundle.bytes.count) bytes -> \(output)")
        }
        return bundle.errors.isEmpty ? ExitCode.success : ExitCode.failure
    }
}
