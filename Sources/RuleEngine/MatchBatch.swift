// JSONL batches: one request line in, one answer line out, errors in place of answers.

import StrictJSON

public struct MatchBatch {
    public let engine: RuleEngine
    private var result = MatchResult()

    public init(engine: RuleEngine) {
        self.engine = engine
    }

    /// Appends the answer line for one request line (without its newline) to `out`.
    public mutating func answer(line: ArraySlice<UInt8>, lineNumber: Int, tooLong: Bool = false, into out: inout [UInt8]) {
        if tooLong {
            MatchResult.writeErrorLine("line \(lineNumber): the line is too long", into: &out)
            return
        }
        let request: MatchRequest
        do {
            request = try line.withUnsafeBytes { try MatchRequest.decode(line: $0) }
        } catch let e as RequestError {
            MatchResult.writeErrorLine("line \(lineNumber): \(e.message)", into: &out)
            return
        } catch {
            MatchResult.writeErrorLine("line \(lineNumber): \(error)", into: &out)
            return
        }
        do {
            let load = try engine.resolve(request)
            engine.match(load, into: &result)
            result.writeJSONLine(into: &out)
        } catch let e as RequestError {
            MatchResult.writeErrorLine("line \(lineNumber): \(e.message)", into: &out)
        } catch {
            MatchResult.writeErrorLine("line \(lineNumber): \(error)", into: &out)
        }
    }
}
