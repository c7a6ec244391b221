/// The `load-type` lists the builders write in triggers.
enum LoadTypes {
    /// The TDS judges third-party requests only: every tracker rule carries it.
    static let thirdParty = ["third-party"]
    /// Both load types: ddg mode's CNAME alias rules and exemptions, as TrackerRadarKit writes them.
    static let anyParty = ["first-party", "third-party"]
}
