// radarblock attribution: the attributed variant of a release's ad-click attribution list for a vendor site.

import FileIO
import Foundation
import Release
import StrictJSON

enum AttributionCommand: Command {
    static let name = "attribution"
    static let summary = "write the attributed variant of a release's ad-click attribution list for a vendor"
    /// The command's options: its grammar lists them and `run` reads them, so a key is spelled once.
    enum Option {
        static let vendor = OptionSpec(
            "--vendor", value: "DOMAIN",
            help: """
                the advertiser's site (normalised to lowercase punycode; a leading "www." is
                dropped, as the apps drop it)
                """)
        static let output = OptionSpec.output(
            """
            write the rules to FILE and the compiled list to FILE with .rbc for .json (or
            FILE.rbc), both atomically, and print one JSON line: {"identifier", "vendor",
            "rules", "rbc", "ruleCount"}. "-" or no -o: the rules JSON on stdout.
            """)
    }

    static let grammar = CommandGrammar(
        forms: ["RELEASE_DIR --vendor DOMAIN [-o|--out OUT.json]"],
        positionals: ["RELEASE_DIR"], positionalCount: 1...1,
        parts: [
            .text(
                """
                While an ad-click attribution for the vendor site DOMAIN is active in a tab, the app disables the
                release's ad-click attribution list (manifest "lists" entry with "role": "ad-click-attribution")
                in that tab and adds this list instead: the same trackers, each with a new first rule for its
                conversion host (the entry's "allowlist"), which blocks the host except on DOMAIN and its
                subdomains. Everything else decides as before. See docs/ad-click-attribution.md.
                """),
            .options(
                nil,
                [
                    Option.vendor,
                    Option.output,
                ]),
            .text(
                """
                The output depends only on the release and the vendor: same bytes, same identifier.
                Exit status: 0 written, 1 the release has no attribution list or cannot be read, 2 usage (also a
                --vendor that is not a host name).
                """),
        ])

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try parse(arguments)
        let vendor = try args.required(Option.vendor)
        do { _ = try AdClickAttributionRelease.vendorSite(vendor) } catch {
            throw UsageError(String(describing: error))
        }
        let list = try AdClickAttributionRelease.attributed(release: args.positionals[0], vendor: vendor)
        let output = args.value(Option.output) ?? "-"
        guard output != "-" else {
            try FileIO.write(list.json, to: "-")
            return ExitCode.success
        }
        let rbcPath = output.hasSuffix(".json") ? String(output.dropLast(5)) + ".rbc" : output + ".rbc"
        try FileIO.write(list.json, to: output)
        try FileIO.write(list.rbc, to: rbcPath)
        print(
            JSONWriter.string(
                .object(
                    JSONObject([
                        ("identifier", .string(list.identifier)), ("vendor", .string(list.vendor)),
                        ("rules", .string(output)),
                        ("rbc", .string(rbcPath)), ("ruleCount", .number(Double(list.rules.count))),
                    ]))))
        return ExitCode.success
    }
}
