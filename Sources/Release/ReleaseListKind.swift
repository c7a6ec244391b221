// How a release holds each kind of converted list beside the main one: its files (ReleaseFiles), its manifest
// role, its name in messages, the count it adds to the manifest and how it is compiled. One definition per kind,
// which `build` (ReleaseBuild's SideLists), `diff` (DiffSide) and the readers go through; a new kind of list is
// a case of Conversion's ConvertedListKind and its answers here (docs/architecture.md, "Adding a list kind").

import Conversion

extension ConvertedListKind {
    /// The files the list is published as; nil for the main list, whose parts are named by target and part
    /// (`ReleaseFiles.rules(part:)`).
    public var files: ReleaseFiles.SideListFiles? {
        switch self {
        case .main: return nil
        case .clickToLoad(let ruleAction): return ReleaseFiles.clickToLoadList(ruleAction)
        case .adClickAttribution: return ReleaseFiles.attributionList
        case .cookiePopups: return ReleaseFiles.cookiePopupList
        case .filterLists(let layer): return ReleaseFiles.filterList(layer, part: 1)
        }
    }

    /// The release file the list's rules are written to.
    public var rulesFile: String { files?.rules ?? ReleaseFiles.rules }

    /// Its `role` in the manifest's `lists`.
    public var role: ReleaseListRole {
        switch self {
        case .main: return .main
        case .clickToLoad: return .clickToLoad
        case .adClickAttribution: return .adClickAttribution
        case .cookiePopups: return .cookiePopups
        case .filterLists: return .filterLists
        }
    }

    /// The list as a message names it ("click-to-load list block-x").
    public var what: String {
        switch self {
        case .main: return "main list"
        case .clickToLoad(let ruleAction): return "click-to-load list \(ruleAction)"
        case .adClickAttribution: return "ad-click attribution list"
        case .cookiePopups: return "cookie pop-up list"
        case .filterLists(let layer): return "filter lists' \(layer.rawValue) list"
        }
    }

    /// The manifest count its rules add to.
    public var ruleCount: ManifestCount {
        switch self {
        case .main: return .rules
        case .clickToLoad: return .clickToLoadRules
        case .adClickAttribution: return .attributionRules
        case .cookiePopups: return .cookiePopupRules
        case .filterLists: return .filterListRules
        }
    }

    /// Written as the primary target encodes it: the builder writes for the newest engine (`top-document`), which
    /// the default target does not read. The cookie pop-up list and the filter lists' list are made for their
    /// target by their own builders.
    public var encodedForTarget: Bool {
        switch self {
        case .adClickAttribution, .clickToLoad: return true
        default: return false
        }
    }

    /// Checked against the target's limits before compiling (the cookie pop-up list's selectors).
    public var checkedAgainstTarget: Bool {
        switch self {
        case .cookiePopups, .filterLists: return true
        default: return false
        }
    }

    /// Split into parts at the target's rule limit, each part a list of its own (`files(part:)`); the other side
    /// lists are one list each.
    public var splitsAtLimit: Bool {
        if case .filterLists = self { return true }
        return false
    }

    /// The files of part n (1-based) of a list that splits; `files` is part 1.
    public func files(part n: Int) -> ReleaseFiles.SideListFiles? {
        if case .filterLists(let layer) = self { return ReleaseFiles.filterList(layer, part: n) }
        return n == 1 ? files : nil
    }
}
