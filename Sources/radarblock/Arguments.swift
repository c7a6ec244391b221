// A small argument parser: the toolchain has no swift-argument-parser here, and the command
// contract (DESIGN.md) needs only options with values, repeatable options, flags and positionals.

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

struct OptionSpec {
    let names: [String]       // e.g. ["-o", "--output"]
    let takesValue: Bool
    let repeatable: Bool
    init(_ names: String..., value: Bool = true, repeatable: Bool = false) {
        self.names = names
        takesValue = value
        self.repeatable = repeatable
    }
}

struct ParsedArguments {
    private(set) var values: [String: [String]] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positionals: [String] = []

    /// The value of an option by its canonical (first, long) name.
    func value(_ name: String) -> String? { values[name]?.last }
    func all(_ name: String) -> [String] { values[name] ?? [] }
    func has(_ name: String) -> Bool { flags.contains(name) }

    func required(_ name: String) throws -> String {
        guard let v = value(name) else { throw UsageError("missing required option \(name)") }
        return v
    }

    static func parse(_ args: [String], options: [OptionSpec], positionals range: ClosedRange<Int> = 0...0) throws -> ParsedArguments {
        var parsed = ParsedArguments()
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
            guard let spec = byName[name] else { throw UsageError("unknown option \(name)") }
            let key = spec.names.last!
            if spec.takesValue {
                let v: String
                if let inline { v = inline } else {
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
        if !range.contains(parsed.positionals.count) {
            if range.upperBound == 0 { throw UsageError("unexpected argument \(parsed.positionals.first!)") }
            throw UsageError(parsed.positionals.count < range.lowerBound ? "missing argument" : "too many arguments")
        }
        return parsed
    }
}

// MARK: --target (one definition for every command that takes it)

import ContentRules

extension OptionSpec {
    static let target = OptionSpec("--target")
}

extension ParsedArguments {
    /// The engine profile named by --target, or the fixed default.
    func target() throws -> EngineProfile {
        guard let name = value("--target") else { return .default }
        guard let profile = EngineProfile.named(name) else {
            throw UsageError("unknown --target \(name): use one of \(EngineProfile.names)")
        }
        return profile
    }
}

enum TargetHelp {
    /// The --target paragraph of the help texts; `what` says what the command does with it. `indent` is
    /// the command's option indentation.
    static func option(_ what: String, indent: String = "  ") -> String {
        let text = "the engine the output is for (default \(EngineProfile.default.name), a fixed profile: never "
            + "what is installed); " + what + ". Profiles:"
        let pad = indent + String(repeating: " ", count: 18)
        var lines = [indent + "--target NAME     " + wrap(text, width: 96 - pad.count).joined(separator: "\n" + pad)]
        lines += EngineProfile.helpTable.split(separator: "\n").map { pad + $0.dropFirst(2) }
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
