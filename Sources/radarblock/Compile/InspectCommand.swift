// radarblock inspect: what is inside an .rbc file.

import FileIO
import Foundation
import RuleCompiler
import StrictJSON

enum InspectCommand: Command {
    static let name = "inspect"
    static let summary = "show an .rbc file's header, identifier, counts and automata sizes"
    /// The command's options: its grammar lists them and `run` reads them, so a key is spelled once.
    enum Option {
        static let json = OptionSpec("--json", help: "print one JSON object instead")
    }

    static let grammar = CommandGrammar(
        forms: ["LIST.rbc [--json]"], positionals: ["LIST.rbc"], positionalCount: 1...1,
        parts: [
            .text(
                """
                Checks the file completely (magic, format version, size, checksum, sections, identifier) and
                prints its identifier, versions, rule and action counts, the global stylesheet size and each
                section's and automaton's size.
                """),
            .options(nil, [Option.json]),
        ])

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try parse(arguments)
        let path = args.positionals[0]
        let bytes = try FileIO.read(path)
        let list = try RBCFile.load(bytes, path: path)
        let info = try RBCInspection(list: list, fileBytes: bytes)
        if args.has(Option.json) {
            print(JSONWriter.string(info.jsonValue))
        } else {
            print(info.text, terminator: "")
        }
        return ExitCode.success
    }
}
