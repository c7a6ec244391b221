// The tracker report switch shared by `surrogates` and `build`: on by default, --no-report-trackers leaves it
// out, and --report-trackers (the opt-in of earlier releases) is still accepted so that old scripts keep working.

enum TrackerReportFlag {
    static func parse(_ args: ParsedArguments) throws -> Bool {
        let off = args.has("--no-report-trackers")
        if off && args.has("--report-trackers") {
            throw UsageError("--report-trackers and --no-report-trackers contradict each other: give one")
        }
        return !off
    }
}
