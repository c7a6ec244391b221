// Progress on stderr: a single updating status line when stderr is a terminal, nothing otherwise
// (CI logs stay line-oriented: only results, warnings and errors).

import Foundation

final class ProgressLine {
    private let enabled = Console.stderrIsTerminal
    private let started = Date()
    private var lastLength = 0

    func update(_ message: String) {
        guard enabled else { return }
        let line = String(format: "[%5.1fs] ", Date().timeIntervalSince(started)) + message
        let pad = max(0, lastLength - line.count)
        FileHandle.standardError.write(Data(("\r" + line + String(repeating: " ", count: pad)).utf8))
        lastLength = line.count
    }

    func finish() {
        guard enabled, lastLength > 0 else { return }
        FileHandle.standardError.write(Data(("\r" + String(repeating: " ", count: lastLength + 10) + "\r").utf8))
        lastLength = 0
    }
}
