// A small argument parser: the toolchain has no swift-argument-parser here, and the commands need only
// options with values, repeatable options, flags and positionals.

import Foundation

struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}

/// Invalid input (exit 1), as opposed to a usage error (exit 2).
struct InputError: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}

/// One option of a command: its spellings, the placeholder of its value (nil for a flag) and the paragraph
/// `--help` gives it. A command's options are a table of these (CommandGrammar): the one place that both
/// parses them and documents them, so adding an option is adding one entry.
struct OptionSpec {
    let names: [String] // e.g. ["-o", "--out", "--output"]; the last one is the key a command reads
    let value: String?
    let repeatable: Bool
    let help: String
    var takesValue: Bool { value != nil }
    var key: String { names.last! }

    init(_ names: String..., value: String? = nil, repeatable: Bool = false, help: String) {
        self.names = names
        self.value = value
        self.repeatable = repeatable
        self.help = help
    }

    /// The output every command that writes one takes, under one set of spellings.
    static func output(_ what: String, value: String = "FILE") -> OptionSpec {
        OptionSpec("-o", "--out", "--output", value: value, help: what)
    }
}

/// A command's grammar: its usage forms, its options (under headings, between paragraphs of prose) and the
/// names of its positional arguments. Its `--help`, its parser, the man page and the completions all come from it.
struct CommandGrammar {
    enum Part {
        case text(String)
        case options(String?, [OptionSpec])
    }
    /// What follows "usage: radarblock NAME", one line per form.
    let forms: [String]
    /// The positionals' names for messages (the last one repeats when `positionalCount` allows more).
    var positionals: [String] = []
    var positionalCount: ClosedRange<Int> = 0...0
    let parts: [Part]

    var options: [OptionSpec] {
        parts.flatMap { part -> [OptionSpec] in if case .options(_, let o) = part { return o } else { return [] } }
    }

    /// The column where option descriptions start.
    static let descriptionColumn = 24

    func help(command name: String) -> String {
        var s =
            forms.enumerated().map { i, form in (i == 0 ? "usage: " : "       ") + "radarblock \(name) " + form }
            .joined(separator: "\n") + "\n"
        for part in parts {
            switch part {
            case .text(let text): s += "\n" + text + (text.hasSuffix("\n") ? "" : "\n")
            case .options(let title, let specs):
                s += "\n" + (title.map { $0 + ":\n" } ?? "")
                for spec in specs { s += Self.render(spec) }
            }
        }
        return s
    }

    /// `  -o, --out, --output FILE   what it does`, the description's further lines under its first.
    static func render(_ spec: OptionSpec) -> String {
        let head = "  " + spec.names.joined(separator: ", ") + (spec.value.map { " " + $0 } ?? "")
        let pad = String(repeating: " ", count: descriptionColumn)
        let lines = spec.help.split(separator: "\n", omittingEmptySubsequences: false)
        var s =
            head.count + 2 <= descriptionColumn
            ? head.padding(toLength: descriptionColumn, withPad: " ", startingAt: 0) + lines[0]
            : head + "\n" + pad + lines[0]
        for line in lines.dropFirst() { s += "\n" + (line.isEmpty ? "" : pad + line) }
        return s + "\n"
    }

    func parse(_ arguments: [String], command: String) throws -> ParsedArguments {
        try ParsedArguments.parse(arguments, options: options, positionals: positionalCount, names: positionals)
    }
}

struct ParsedArguments {
    private(set) var values: [String: [String]] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positionals: [String] = []
    /// The keys of the grammar parsed against: reading any other key is a programming error, not a quiet nil.
    private(set) var declared: Set<String> = []

    /// The value of an option of the command's grammar (its last one, for a repeatable option).
    func value(_ option: OptionSpec) -> String? { value(key: option.key) }
    func all(_ option: OptionSpec) -> [String] { values[declaredKey(option.key)] ?? [] }
    func has(_ option: OptionSpec) -> Bool { flags.contains(declaredKey(option.key)) }
    /// Given at all: a flag set or a value given.
    func given(_ option: OptionSpec) -> Bool { value(option) != nil || has(option) }

    func required(_ option: OptionSpec) throws -> String {
        guard let v = value(option) else { throw UsageError("missing required option \(option.key)") }
        return v
    }

    private func value(key: String) -> String? { values[declaredKey(key)]?.last }

    /// `key`, stopping the program when the grammar did not declare it: a misspelt key fails the first test
    /// that reaches it instead of reading as "not given".
    private func declaredKey(_ key: String) -> String {
        precondition(declared.contains(key), "option \(key) is read but not declared in the command's grammar")
        return key
    }

    static func parse(
        _ args: [String], options: [OptionSpec], positionals range: ClosedRange<Int> = 0...0,
        names: [String] = []
    ) throws -> ParsedArguments {
        var parsed = ParsedArguments()
        parsed.declared = Set(options.map(\.key))
        var byName: [String: OptionSpec] = [:]
        for spec in options { for n in spec.names { byName[n] = spec } }
        var i = 0
        var onlyPositionals = false
        while i < args.count {
            let arg = args[i]
            i += 1
            if onlyPositionals || arg == "-" || !arg.hasPrefix("-") {
                parsed.positionals.append(arg)
                continue
            }
            if arg == "--" { onlyPositionals = true; continue }
            var name = arg
            var inline: String? = nil
            if arg.hasPrefix("--"), let eq = arg.firstIndex(of: "=") {
                name = String(arg[..<eq])
                inline = String(arg[arg.index(after: eq)...])
            }
            guard let spec = byName[name] else {
                let known = options.flatMap(\.names).filter { $0.hasPrefix("--") } + ["--help"]
                throw UsageError(
                    "unknown option \(name)"
                        + (Spelling.nearest(to: name, among: known).map { " (did you mean \($0)?)" } ?? ""))
            }
            let key = spec.key
            if spec.takesValue {
                let v: String
                if let inline {
                    v = inline
                } else {
                    guard i < args.count else { throw UsageError("option \(name) needs a value") }
                    v = args[i]
                    i += 1
                }
                if !spec.repeatable, parsed.values[key] != nil { throw UsageError("option \(name) given twice") }
                parsed.values[key, default: []].append(v)
            } else {
                if inline != nil { throw UsageError("option \(name) takes no value") }
                parsed.flags.insert(key)
            }
        }
        let count = parsed.positionals.count
        if !range.contains(count) {
            if range.upperBound == 0 { throw UsageError("unexpected argument \(parsed.positionals.first!)") }
            if count > range.upperBound {
                throw UsageError("too many arguments: \(range.upperBound) at most, \(count) given")
            }
            let missing = names.isEmpty ? "" : " " + names[min(count, names.count - 1)]
            throw UsageError(
                "missing argument\(missing)" + (names.isEmpty ? "" : " (expected \(names.joined(separator: " ")))"))
        }
        return parsed
    }
}

// MARK: --target (one definition for every command that takes it)

import ContentRules

extension OptionSpec {
    /// --target; `what` says what the command does with it, `default` is the profile without it.
    static func target(_ what: String, repeatable: Bool = false, default: EngineProfile = .default) -> OptionSpec {
        OptionSpec("--target", value: "NAME", repeatable: repeatable, help: TargetHelp.text(what, default: `default`))
    }
}

extension ParsedArguments {
    /// The engine profile named by `option` (the command's --target), or the fixed `default`.
    func target(_ option: OptionSpec, default: EngineProfile = .default) throws -> EngineProfile {
        guard let name = value(option) else { return `default` }
        return try EngineProfile.named(name, option: option)
    }
}

extension EngineProfile {
    /// The profile `name` given to `option`, or a usage error listing the names.
    static func named(_ name: String, option: OptionSpec) throws -> EngineProfile {
        guard let profile = EngineProfile.named(name) else {
            throw UsageError("unknown \(option.key) \(name): use one of \(EngineProfile.names)")
        }
        return profile
    }
}

enum TargetHelp {
    /// The --target paragraph of the help texts; `what` says what the command does with it.
    static func text(_ what: String, default: EngineProfile) -> String {
        let text =
            "the engine the output is for (default \(`default`.name), a fixed profile: never "
            + "what is installed); " + what + ". Profiles:"
        var lines = wrap(text, width: 96 - CommandGrammar.descriptionColumn)
        lines += EngineProfile.helpTable.split(separator: "\n").map { String($0.dropFirst(2)) }
        return lines.joined(separator: "\n")
    }

    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty && line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}

/// The nearest valid spelling of a mistyped option or command.
enum Spelling {
    /// The candidate at the smallest edit distance from `word`, if it is close enough to be a slip (at most a
    /// third of the word's length, at least 1, at most 3), or the one candidate `word` is a prefix of.
    static func nearest(to word: String, among candidates: [String]) -> String? {
        let limit = max(1, min(3, word.count / 3))
        let scored = candidates.map { ($0, distance(word, $0)) }.filter { $0.1 <= limit }
        if let best = scored.min(by: { $0.1 < $1.1 }) { return best.0 }
        let extending = candidates.filter { $0.hasPrefix(word) && word.count >= 3 }
        return extending.count == 1 ? extending[0] : nil
    }

    /// Levenshtein distance (adjacent transpositions count once: "--ouptut").
    static func distance(_ a: String, _ b: String) -> Int {
        let x = Array(a), y = Array(b)
        if x.isEmpty || y.isEmpty { return max(x.count, y.count) }
        var d = [[Int]](repeating: [Int](repeating: 0, count: y.count + 1), count: x.count + 1)
        for i in 0...x.count { d[i][0] = i }
        for j in 0...y.count { d[0][j] = j }
        for i in 1...x.count {
            for j in 1...y.count {
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
                if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[x.count][y.count]
    }
}
