// Commands are small adapters: parse arguments, call the library, write results, map errors to exit codes.

import FileIO
import Foundation

protocol Command {
    static var name: String { get }
    static var summary: String { get }
    /// The command's usage forms, options and help prose: its parser and its `--help`.
    static var grammar: CommandGrammar { get }
    /// Returns the exit status (0 success, 1 invalid input / failed check / "different").
    static func run(_ arguments: [String]) throws -> Int32
}

extension Command {
    /// Full usage text printed by `--help` and `radarblock help NAME`.
    static var help: String { grammar.help(command: name) }
    static func parse(_ arguments: [String]) throws -> ParsedArguments { try grammar.parse(arguments, command: name) }
}

enum ExitCode {
    static let success: Int32 = 0
    static let failure: Int32 = 1
    static let usage: Int32 = 2
    /// `diff` follows diff(1): 0 no differences, 1 different, 2 trouble (any error, usage or input).
    static let different: Int32 = 1
    static let trouble: Int32 = 2
}

/// Exits with `status` now, with `values` still alive: a command's large structures (a diff's two sides, with
/// their datasets, rules and provenance) go with the process instead of being freed an allocation at a time,
/// which took 0.08 s of the iOS release diff's 0.6 s on one core. Everything must be written and committed first.
func exitKeeping(_ values: Any..., status: Int32) -> Never {
    withExtendedLifetime(values) { exit(status) }
}

/// Writes to stderr without buffering surprises; every message is bounded (MessageText).
enum Console {
    static func error(_ message: String) {
        FileHandle.standardError.write(Data(("radarblock: error: " + MessageText.bounded(message) + "\n").utf8))
    }
    static func warning(_ message: String) {
        FileHandle.standardError.write(Data(("radarblock: warning: " + MessageText.bounded(message) + "\n").utf8))
    }
    static func note(_ message: String) {
        FileHandle.standardError.write(Data((MessageText.bounded(message) + "\n").utf8))
    }
    static var stderrIsTerminal: Bool { isatty(2) == 1 }
}
