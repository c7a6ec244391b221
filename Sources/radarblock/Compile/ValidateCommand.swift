// `radarblock validate RULES.json [--json]`: would WebKit accept this rule list, and if not, what would it say?

import Foundation
import ContentRules
import FileIO
import RuleCompiler
import StrictJSON

struct ValidateCommand: Command {
    static let name = "validate"
    static let summary = "check a rule list exactly as WebKit would (error names and messages)"
    /// The command's options: its grammar lists them and `run` reads them, so a key is spelled once.
    enum Option {
        static let json = OptionSpec(
            "--json",
            help: """
                print {"valid": true, "rules": N} or
                {"valid": false, "error": NAME, "message": MESSAGE, "rule": INDEX|null};
                keys the target ignores add "ignored": [{"rule": I, "key": K}, ...]
                """)
        static let target = OptionSpec.target(
            "the list is checked as that engine checks it: its rule limit, the keys it reads")
        static let strict = OptionSpec("--strict", help: "fail (exit 1) when the target would ignore a key")
        static let identifierRules = OptionSpec(
            "--identifier-rules",
            help: """
                read _identifier/_rulesetIdentifier whatever the target (as --target
                webkitgtk-2.52 does; the installed WebKitGTK 2.50.6 ignores them)
                """)
    }

    static let grammar = CommandGrammar(
        forms: ["RULES.json [--json] [--target NAME] [--strict] [--identifier-rules]"],
        positionals: ["RULES.json"], positionalCount: 1...1,
        parts: [
            .text(
                """
                Checks a content rule list the way WebKit's compiler does (same order of checks, first error wins) and
                reports WebKit's error name and message. RULES.json may be '-' for standard input.
                """),
            .options(
                nil,
                [
                    Option.json,
                    Option.target,
                    Option.strict,
                    Option.identifierRules,
                ]),
            .text(
                """
                A key the target does not read is ignored by it without an error; such a rule matches more widely
                than written (a frame-url condition ignored by Safari 15 blocks in every frame). validate warns on
                stderr for every such key, naming the rule index and the key.

                Text mode prints "valid: N rules" (plus a note for each rule WebKit would skip) on stdout, or
                "invalid: rule I: NAME: MESSAGE" and our own explanation on stderr.
                Exit status: 0 valid, 1 invalid (or, with --strict, a key the target ignores), 2 usage error.

                A valid list is also checked for what WebKit's compiler cannot do in reasonable time or memory:
                WebKit builds one DFA per group of patterns with the same variable-length prefix, with no bound on
                its size (its 75,000-node NFA split does not bound the DFA). validate runs the same construction
                and warns (on stderr, "radarblock: warning: rule I: WebKit's compiler will not finish ...") about
                each automaton over \(WebKitPainThreshold.states) DFA states or \(WebKitPainThreshold.members) NFA\
                 nodes summed over its
                states; with --json they are listed in "webkitPain": [{"rule": I, "message": ...}] (only when
                there are any). The exit status stays 0: WebKit would accept the list, eventually.
                """),
        ])

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try parse(arguments)
        let path = args.positionals[0]
        let bytes = try FileIO.read(path)
        let target = try args.target(Option.target)
        let options = RuleListParserOptions(
            identifierRules: args.has(Option.identifierRules) ? true : nil, target: target)
        let json = args.has(Option.json)
        do {
            let list = try RuleListParser.validate(bytes: bytes, options: options)
            let ignored = ignoredKeys(bytes, target: target, options: options)
            for key in ignored { Console.warning("\(path): \(key)") }
            let pain = try RuleListCompiler.webKitPain(list)
            if json {
                let painField =
                    pain.isEmpty
                    ? ""
                    : ", \"webkitPain\": "
                        + JSONWriter.string(
                            .array(
                                pain.map { w in
                                    .object(
                                        JSONObject([
                                            ("rule", .number(Double(w.rule))), ("message", .string(w.description)),
                                        ]))
                                }))
                print("{\"valid\": true, \"rules\": \(list.rules.count)\(ignoredJSON(ignored))\(painField)}")
            } else {
                for w in pain { Console.warning(w.description) }
                print("valid: \(list.rules.count) rule\(list.rules.count == 1 ? "" : "s")")
                if !list.skipped.isEmpty {
                    let n = list.skipped.count
                    print("skipped: \(n) rule\(n == 1 ? "" : "s") (WebKit drops \(n == 1 ? "it" : "them") silently)")
                    for s in list.skipped { print("  " + s.description) }
                }
            }
            if args.has(Option.strict) && !ignored.isEmpty {
                Console.error("\(path): \(ignored.count) key(s) would be ignored by \(target.name) (--strict)")
                return ExitCode.failure
            }
            return ExitCode.success
        } catch let e as RuleListValidationError {
            if json {
                // The layout `radarblock validate --help` documents; strings escaped by the project's JSON writer.
                let name = JSONWriter.string(.string(e.error.name))
                let message = JSONWriter.string(.string(e.error.message))
                let rule = e.ruleIndex.map(String.init) ?? "null"
                print("{\"valid\": false, \"error\": \(name), \"message\": \(message), \"rule\": \(rule)}")
            } else {
                let at = e.ruleIndex.map { "rule \($0): " } ?? ""
                var text = "invalid: \(at)\(e.error.name): \(e.error.message)\n"
                if let detail = e.detail { text += "  \(path): \(detail)\n" }
                FileHandle.standardError.write(Data(text.utf8))
            }
            return ExitCode.failure
        }
    }

    /// Keys the target ignores (the list is valid, so it parses).
    static func ignoredKeys(_ bytes: [UInt8], target: EngineProfile, options: RuleListParserOptions) -> [IgnoredKey] {
        guard let root = try? RuleListJSONReader.parse(bytes) else { return [] }
        // --identifier-rules makes the identifier keys read whatever the target.
        return target.ignoredKeys(in: root).filter {
            !(options.identifierRules && $0.feature == GatedFeature.identifierRules)
        }
    }

    static func ignoredJSON(_ ignored: [IgnoredKey]) -> String {
        if ignored.isEmpty { return "" }
        let items = ignored.map { "{\"rule\": \($0.ruleIndex), \"key\": \(JSONWriter.string(.string($0.key)))}" }
        return ", \"ignored\": [" + items.joined(separator: ", ") + "]"
    }
}
