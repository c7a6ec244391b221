// The heads of the host-anchored url-filters written for filter lists' `||` patterns, spelled once: the converter
// writes them (FilterLists' PatternURLFilter) and the matcher recognizes them by their terms (MatcherHostTable).

public enum HostPattern {
    /// Any scheme, one or more slashes (TrackerData's TDSConventions.schemePrefix, the same bytes).
    public static let schemePrefix = "^[^:]+://+"

    /// The scheme, then optionally a run ending in a dot before the host: the head of every `||` pattern.
    public static let subdomainHead = schemePrefix + "([^/]+\\.)?"

    /// The head of a `||HOST^` rule alone: the run may go on past a `/` into a `<`, which a URL WebKit serializes
    /// with `://` after its scheme never holds (every percent-encode set but the C0 one has it, that one is an opaque
    /// path's, which cannot start with `//`, and a host may not), so on those URLs it matches as `subdomainHead`
    /// does. FilterLists' PatternURLFilter.ruleURLFilter says why it is cheaper in WebKit.
    public static let onlyHostHead = schemePrefix + "(([^/]+(/<)?)+\\.)?"
}
