// `radarblock compile --engine webkit`: the same list compiled by WebKit's own compiler
// (WebKitGTK's WebKitUserContentFilterStore, loaded at run time), for comparison and benchmarks.
// Also where WebKitBridge is wired into ReleaseBuild and Install: `build --verify-webkit`, `build --previous` and
// `install` get WebKit's compiler from here, so the library does not load WebKitGTK unless asked to.

import FileIO
import Foundation
import Install
import Release
import ReleaseBuild
import RuleCompiler
import WebKitBridge

enum WebKitEngine {
    /// Compiles `input` into the WebKit store directory `storeDirectory` as `ContentRuleList-<name>`.
    static func compile(
        input: String, storeDirectory: String, name: String?, dataset: String?, format: CompileCommand.Format
    ) throws -> Int32 {
        if dataset != nil {
            throw UsageError("--dataset goes with --engine radarblock (WebKit's identifier is --name)")
        }
        if storeDirectory == "-" { throw UsageError("--engine webkit writes into a store directory: give -o DIR") }
        let identifier = name ?? RuleListIdentifier.defaultName(forPath: input)
        let json = try FileIO.read(input)
        let compiler = try WebKitContentRuleCompiler()
        let result: WebKitCompileResult
        do {
            result = try compiler.compile(rulesJSON: json, identifier: identifier, storePath: storeDirectory)
        } catch let e as WebKitBridgeError {
            if case .rejected = e { throw InputError("\(input): \(e.description)") }
            throw e
        }
        switch format {
        case .text: Console.note(note(result))
        case .json: try FileIO.write(WebKitCompileReport(result).jsonLine, to: "-")
        }
        return ExitCode.success
    }

    /// What `compile --engine webkit` says of a compile, for people (programs read `--format json`).
    static func note(_ result: WebKitCompileResult) -> String {
        "\(result.filePath): WebKit \(result.webkitVersion), \(result.bytes) bytes, "
            + "compiled in \(String(format: "%.3f", result.seconds)) s, "
            + "peak RSS \(result.peakRSSKB) KiB (\(result.rssBeforeKB) KiB before compiling), "
            + "\(String(format: "%.3f", result.cpuSeconds)) s CPU"
    }

    /// `build --previous`: WebKit's compile cost of a list, each compile in a fresh `radarblock compile --engine
    /// webkit` process. A child of its own because the build's process is large already: its peak RSS could not
    /// show what the compile needs, and the memory WebKit freed after one list would serve the next.
    /// Memory is the child's peak RSS above that of a child compiling a one-rule list.
    static let costMeter = WebKitCostMeter {
        let compiler = try WebKitContentRuleCompiler()
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let baseline = try childCompile(
            executable, json: Array(#"[{"trigger":{"url-filter":"^x-baseline:"},"action":{"type":"block"}}]"#.utf8))
        return WebKitCostMeter.Loaded(version: compiler.webkitVersion) { json in
            let r = try childCompile(executable, json: json)
            return WebKitCompileCost(
                seconds: r.seconds, cpuSeconds: r.cpuSeconds, memoryKB: max(0, r.peakRSSKB - baseline.peakRSSKB),
                bytes: r.bytes)
        }
    }

    static func childCompile(_ executable: String, json: [UInt8]) throws -> WebKitCompileReport {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("radarblock-cost-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileIO.write(json, to: dir + "/list.json")
        let child = Process()
        child.executableURL = URL(fileURLWithPath: executable)
        child.arguments = [
            "compile", dir + "/list.json", "--engine", "webkit", "-o", dir + "/store", "--name", "cost",
            "--format", "json",
        ]
        // stderr into a file of the temporary directory: a child blocked writing one pipe while we read the
        // other would never exit.
        let stderrPath = dir + "/stderr"
        guard FileManager.default.createFile(atPath: stderrPath, contents: nil),
            let stderrFile = FileHandle(forWritingAtPath: stderrPath)
        else { throw FileError(path: stderrPath, reason: "cannot create") }
        let stdout = Pipe()
        child.standardOutput = stdout
        child.standardError = stderrFile
        try child.run()
        let report = Array(stdout.fileHandleForReading.readDataToEndOfFile())
        child.waitUntilExit()
        guard child.terminationStatus == 0 else {
            let text = String(decoding: (try? FileIO.read(stderrPath)) ?? [], as: UTF8.self)
            throw InputError(
                "WebKit's compile failed (exit \(child.terminationStatus)):"
                    + " \(MessageText.bounded(text.trimmingCharacters(in: .whitespacesAndNewlines)))"
            )
        }
        do { return try WebKitCompileReport(json: report) } catch {
            throw InputError("radarblock compile --engine webkit --format json: \(error)")
        }
    }

    /// `build --verify-webkit`: ReleaseBuild's verify step, served by WebKitGTK.
    static let verifier = WebKitVerifier {
        let compiler = try WebKitContentRuleCompiler()
        return WebKitVerifier.Loaded(version: compiler.webkitVersion) { json in
            let v = try compiler.verify(rulesJSON: json)
            return WebKitVerdict(
                accepted: v.accepted, message: v.message, detail: v.detail, seconds: v.seconds, bytes: v.bytes)
        }
    }

    /// `install`: WebKit's store, its compiler loaded on first use (a re-install that compiles nothing never loads
    /// WebKit).
    static func store() -> WebKitStore {
        nonisolated(unsafe) var compiler: WebKitContentRuleCompiler? = nil
        return WebKitStore(
            compile: { json, identifier, store in
                if compiler == nil { compiler = try WebKitContentRuleCompiler() }
                let r = try compiler!.compile(rulesJSON: json, identifier: identifier, storePath: store)
                return (r.bytes, r.seconds)
            },
            version: {
                if compiler == nil { compiler = try WebKitContentRuleCompiler() }
                return compiler!.webkitVersion
            })
    }
}
