// The tracker report switch shared by `surrogates` and `build`: on by default, --no-report-trackers leaves it
// out, and --report-trackers (the opt-in of earlier releases) is still accepted so that old scripts keep working.

enum TrackerReportFlag {
    static let reportTrackers = OptionSpec(
        "--report-trackers", help: "accepted, and changes nothing (reporting is the default)")

    /// Whether to report, from `reportTrackers` and the command's `noReportTrackers` (its help is the command's).
    static func parse(_ args: ParsedArguments, off noReportTrackers: OptionSpec) throws -> Bool {
        let off = args.has(noReportTrackers)
        if off && args.has(reportTrackers) {
            throw UsageError("\(reportTrackers.key) and \(noReportTrackers.key) contradict each other: give one")
        }
        return !off
    }
}
