// radarblock: tracker datasets -> WebKit content rule lists, bytecode, surrogates and diffs.

import Foundation
import ContentRules

// Each command adds itself here (one line per command).
let commands: [Command.Type] = [
    TDSCommand.self,
    ValidateCommand.self,
    SurrogatesCommand.self,
    CompileCommand.self,
    InspectCommand.self,
    MatchCommand.self,
    ConvertCommand.self,
    BuildCommand.self,
    DiffCommand.self,
    InstallCommand.self,
    AttributionCommand.self,
]

func usage() -> String {
    var s =
        "usage: radarblock <command> [options]\n       radarblock help [COMMAND | --man | --completion bash|zsh]\n"
        + "       radarblock --version\n\ncommands:\n"
    let width = max(11, (commands.map { $0.name.count }.max() ?? 0) + 1)
    for c in commands { s += "  " + c.name.padding(toLength: width, withPad: " ", startingAt: 0) + c.summary + "\n" }
    s += """

        Run 'radarblock <command> --help' or 'radarblock help <command>' for a command's options,
        'radarblock help --man' for the manual page, 'radarblock --version' for the versions.

        """
    return s
}

func main() -> Int32 {
    let args = Array(CommandLine.arguments.dropFirst())
    guard let name = args.first else {
        FileHandle.standardError.write(Data(usage().utf8))
        return ExitCode.usage
    }
    if name == "help", args.count > 1 {
        do { return try HelpDocuments.run(Array(args.dropFirst())) } catch {
            Console.error(String(describing: error))
            return ExitCode.usage
        }
    }
    if name == "--help" || name == "-h" || name == "help" {
        print(usage(), terminator: "")
        return ExitCode.success
    }
    if name == "--version" {
        print(VersionInfo.text, terminator: "")
        return ExitCode.success
    }
    let command: Command.Type
    do { command = try HelpDocuments.command(named: name) } catch {
        Console.error(String(describing: error))
        return ExitCode.usage
    }
    let rest = Array(args.dropFirst())
    if rest.contains("--help") || rest.contains("-h") {
        print(command.help, terminator: command.help.hasSuffix("\n") ? "" : "\n")
        return ExitCode.success
    }
    do {
        return try command.run(rest)
    } catch let e as UsageError {
        // One line: what is wrong, and where the usage is.
        Console.error(e.description + " (run 'radarblock \(name) --help' for usage)")
        return ExitCode.usage
    } catch {
        Console.error(String(describing: error))
        return ExitCode.failure
    }
}

// SIGPIPE (e.g. `radarblock match ... | head`) should end quietly, not crash.
signal(SIGPIPE, SIG_IGN)
exit(main())
