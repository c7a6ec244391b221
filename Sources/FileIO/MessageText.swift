// Messages end up on terminals and in logs (stderr, issues.txt). A hostile dataset can put a 200 MB string
// where a value is quoted; echoing it whole floods both. Every message is bounded at those edges: a long
// one keeps its head (which names the file and place) and its tail (which says what is wrong).

public enum MessageText {
    /// UTF-8 bytes kept from a long message, head and tail together.
    public static let defaultLimit = 2_000

    public static func bounded(_ message: String, limit: Int = defaultLimit) -> String {
        let utf8 = message.utf8
        guard utf8.count > limit else { return message }
        let keep = max(limit / 2, 1)
        var headEnd = utf8.index(utf8.startIndex, offsetBy: keep)
        while headEnd > utf8.startIndex, isContinuation(utf8[headEnd]) { headEnd = utf8.index(before: headEnd) }
        var tailStart = utf8.index(utf8.endIndex, offsetBy: -keep)
        while tailStart < utf8.endIndex, isContinuation(utf8[tailStart]) { tailStart = utf8.index(after: tailStart) }
        let omitted = utf8.distance(from: headEnd, to: tailStart)
        return String(message[..<headEnd]) + " …[\(omitted) bytes omitted]… " + String(message[tailStart...])
    }

    @inline(__always) static func isContinuation(_ byte: UInt8) -> Bool { byte & 0xC0 == 0x80 }
}
