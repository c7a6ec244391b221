// radarblock compile: rule-list JSON -> .rbc (radarblock's own bytecode container).

import ContentRules
import FileIO
import Foundation
import RuleCompiler

enum CompileCommand: Command {
    static let name = "compile"
    static let summary = "compile rule-list JSON to a versioned bytecode file (.rbc)"
    /// The command's options: its grammar lists them and `run` reads them, so a key is spelled once.
    enum Option {
        static let output = OptionSpec.output(
            "the .rbc file to write (with --engine webkit: the store directory)", value: "OUT")
        static let name = OptionSpec(
            "--name", value: "NAME",
            help: """
                identifier name (default: the input file's name without extension);
                characters A-Z a-z 0-9 . -
                """)
        static let dataset = OptionSpec(
            "--dataset", value: "VERSION",
            help: """
                version of the data the list was made from (e.g. the TDS ETag), part of
                the identifier
                """)
        static let embedSource = OptionSpec(
            "--embed-source",
            help: """
                keep the source JSON in the file (like WebKit does), so that
                `match LIST.rbc --url ...` can show the triggers of the deciding rules;
                without it only the source's SHA-256 is kept and rules are named by index
                """)
        static let target = OptionSpec.target(
            "the list is parsed as that engine parses it (rule limit, keys it reads); a rule using a key the target"
                + " would ignore and so match more widely (e.g. if-frame-url for safari-15) is refused, naming the"
                + " rule and the key"
        )
        static let engine = OptionSpec(
            "--engine", value: "radarblock|webkit",
            help: """
                radarblock (default) writes OUT.rbc; webkit compiles with WebKit's own compiler
                (WebKitGTK 6.0, loaded at run time) into the store directory given by -o:
                -o DIR writes DIR/ContentRuleList-<NAME>, WebKit's file (--dataset is not used)
                """)
        static let format = OptionSpec(
            "--format", value: "text|json",
            help: """
                with --engine webkit: what is said of the compile; text (default) is a sentence on
                stderr, json one object on stdout: {"file","webkitVersion","bytes","seconds",
                "peakRSSKB","rssBeforeKB","cpuSeconds"}
                """)
    }

    /// How `--engine webkit` reports its compile.
    enum Format: String {
        case text, json
    }

    static let grammar = CommandGrammar(
        forms: [
            "RULES.json -o OUT.rbc [--name NAME] [--dataset VERSION] [--embed-source] [--target NAME] [budgets]",
            "RULES.json --engine webkit -o STORE_DIR [--name NAME] [--format text|json]",
        ],
        positionals: ["RULES.json"], positionalCount: 1...1,
        parts: [
            .text(
                """
                Validates the list exactly like WebKit (same errors, same rule indices), compiles its
                url-filters and conditions to automata and writes them, with the actions and the source,
                to OUT.rbc (atomically; "-o -" writes to stdout). Identical input gives identical bytes.
                """),
            .options(
                nil,
                [
                    Option.output,
                    Option.name,
                    Option.dataset,
                    Option.embedSource,
                    Option.target,
                    Option.engine,
                    Option.format,
                ]),
            .text(
                """
                The identifier is <name>[@<dataset>]_v<format version>_<tool version>_<16 hex digits of
                SHA-256 over the versions, name, dataset and source>; `radarblock inspect` shows it.
                """),
            BudgetOptions.part,
            .text("Over a budget, compile exits 1 and writes nothing."),
        ])

    static func parseFormat(_ args: ParsedArguments) throws -> Format? {
        guard let value = args.value(Option.format) else { return nil }
        guard let format = Format(rawValue: value) else { throw UsageError("--format must be text or json") }
        return format
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try parse(arguments)
        let target = try args.target(Option.target)
        let budget = try BudgetOptions.parse(args)
        let input = args.positionals[0]
        guard let output = args.value(Option.output) else { throw UsageError("missing -o OUT.rbc (or --out)") }
        let format = try parseFormat(args)
        switch args.value(Option.engine) ?? "radarblock" {
        case "radarblock":
            if format != nil { throw UsageError("--format goes with --engine webkit") }
        case "webkit":
            return try WebKitEngine.compile(
                input: input, storeDirectory: output, name: args.value(Option.name),
                dataset: args.value(Option.dataset),
                format: format ?? .text)
        case let engine: throw UsageError("unknown --engine \(engine): use radarblock or webkit")
        }
        let name = args.value(Option.name) ?? RuleListIdentifier.defaultName(forPath: input)
        guard RuleListIdentifier.isValidComponent(name) else {
            throw UsageError("invalid --name \"\(name)\": use 1 to 100 characters from A-Z a-z 0-9 . -")
        }
        if let d = args.value(Option.dataset), !RuleListIdentifier.isValidComponent(d) {
            throw UsageError("invalid --dataset \"\(d)\": use 1 to 100 characters from A-Z a-z 0-9 . -")
        }
        let json = try FileIO.read(input)
        let compiled: CompiledRuleList
        do {
            compiled = try RuleListCompiler.compile(
                json: json,
                options: .init(
                    name: name, dataset: args.value(Option.dataset),
                    parser: RuleListParserOptions(target: target),
                    embedSource: args.has(Option.embedSource),
                    budget: budget))
            try target.requireSupport(in: RuleListJSONReader.parse(json))
        } catch let e as RuleListValidationError {
            throw InputError("\(input): \(e.description)")
        } catch let e as UnsupportedOnTargetError {
            throw InputError("\(input): \(e.description)")
        } catch let e as CompileBudgetErrors {
            throw InputError(e.exceeded.map { "\(input): \($0)" }.joined(separator: "\n"))
        }
        let bytes = RBCFile.bytes(compiled)
        try FileIO.write(bytes, to: output)
        if compiled.skippedRuleCount > 0 {
            Console.warning(
                "\(input): \(compiled.skippedRuleCount) rule(s) skipped as WebKit skips them (run `radarblock"
                    + " validate` for details)"
            )
        }
        if output != "-" {
            Console.note("\(output): \(compiled.identifier), \(compiled.rules.count) rules, \(bytes.count) bytes")
        }
        return ExitCode.success
    }
}
