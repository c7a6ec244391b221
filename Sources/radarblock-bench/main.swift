// radarblock-bench: the in-process measurements behind `make bench` (scripts/bench.sh) that the
// radarblock command line cannot give:
//
//   radarblock-bench match LIST.rbc REQUESTS.jsonl [--min-seconds S]
//       In-memory matching on one thread. Requests are decoded and resolved (URL canonicalization,
//       registrable domains, flags) once; then the whole sequence is matched in order, repeatedly,
//       until at least S seconds (default 3) have passed. Reports loads/s for `match` alone and for
//       resolve + match from a decoded request. Prints one JSON object.
//
// WebKit's side of the benchmark needs no helper: `radarblock compile --engine webkit` reports it.

import ContentRules
import Foundation
import RuleCompiler
import RuleEngine
import StrictJSON

func fail(_ message: String, status: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data(("radarblock-bench: " + message + "\n").utf8))
    exit(status)
}

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

func readFile(_ path: String) -> [UInt8] {
    guard let data = FileManager.default.contents(atPath: path) else { fail("\(path): cannot read") }
    return [UInt8](data)
}

func printJSON(_ object: JSONObject) {
    print(JSONWriter.string(.object(object), options: [.sortedKeys]))
}

func benchMatch(listPath: String, requestsPath: String, minSeconds: Double) {
    let list: LoadedRuleList
    do {
        list = try LoadedRuleList(RBCFile.load(readFile(listPath), path: listPath))
    } catch {
        fail("\(error)")
    }
    let engine = RuleEngine(lists: [list])
    var requests: [MatchRequest] = []
    var loads: [ResourceLoad] = []
    var lineNumber = 0
    for line in readFile(requestsPath).split(separator: 0x0A, omittingEmptySubsequences: true) {
        lineNumber += 1
        do {
            let request = try line.withUnsafeBytes { try MatchRequest.decode(line: $0) }
            requests.append(request)
            loads.append(try engine.resolve(request))
        } catch {
            fail("\(requestsPath): line \(lineNumber): \(error)")
        }
    }
    guard !loads.isEmpty else { fail("\(requestsPath): no requests") }

    // Counted so the optimizer cannot drop the work, and reported as a sanity check.
    var result = MatchResult()
    var withActions = 0
    var matched = 0
    var start = now()
    var elapsed = 0.0
    var rounds = 0
    repeat {
        for load in loads {
            engine.match(load, into: &result)
            if !result.entries.isEmpty { withActions += 1 }
        }
        matched += loads.count
        rounds += 1
        elapsed = now() - start
    } while elapsed < minSeconds
    let matchRate = Double(matched) / elapsed
    let withActionsShare = Double(withActions) / Double(matched)

    var resolved = 0
    start = now()
    repeat {
        for request in requests {
            if let load = try? engine.resolve(request) {
                engine.match(load, into: &result)
            }
        }
        resolved += requests.count
        elapsed = now() - start
    } while elapsed < minSeconds
    let resolveRate = Double(resolved) / elapsed

    var o = JSONObject()
    o["list"] = .string(listPath)
    o["requests"] = .number(Double(loads.count))
    o["rounds"] = .number(Double(rounds))
    o["matchPerSecond"] = .number(matchRate.rounded())
    o["resolveAndMatchPerSecond"] = .number(resolveRate.rounded())
    o["shareWithActions"] = .number((withActionsShare * 10000).rounded() / 10000)
    printJSON(o)
}

let matchUsage = "usage: radarblock-bench match LIST.rbc REQUESTS.jsonl [--min-seconds S]"

let arguments = Array(CommandLine.arguments.dropFirst())
func printUsage(_ text: String) -> Never {
    print(text)
    exit(0)
}
switch arguments.first {
case "--help", "-h":
    printUsage(matchUsage)
case "match":
    var rest = Array(arguments.dropFirst())
    if rest.contains("--help") { printUsage(matchUsage) }
    var minSeconds = 3.0
    if let i = rest.firstIndex(of: "--min-seconds"), i + 1 < rest.count {
        guard let s = Double(rest[i + 1]), s > 0 else { fail("--min-seconds needs a positive number", status: 2) }
        minSeconds = s
        rest.removeSubrange(i...(i + 1))
    }
    guard rest.count == 2 else { fail(matchUsage, status: 2) }
    benchMatch(listPath: rest[0], requestsPath: rest[1], minSeconds: minSeconds)
default:
    fail(matchUsage, status: 2)
}
