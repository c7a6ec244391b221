// Pseudo-class and pseudo-element tables (WebKit's CSSPseudoSelectors.json, as enabled in WebKitGTK for
// content rules).

enum PseudoElementKind: Equatable {
    case before, after, marker, backdrop, firstLetter, firstLine, selection, grammarError, spellingError
    case highlight, part, slotted, cue, scrollbar, userAgentPart, userAgentPartLegacyAlias, webKitUnknown

    var isTreeAbiding: Bool { self == .before || self == .after || self == .marker || self == .backdrop }
    var requiresArgument: Bool { self == .highlight || self == .part || self == .slotted }
}

enum CSSPseudoTables {
    /// Pseudo-classes enabled for a bare (non-UA, default settings) parser context, name → argument
    /// ("" none, "required", "optional"). Disabled here: -internal-*, -apple-*, popover-open, active-view-transition*.
    static let pseudoClasses: [String: String] = {
        var t: [String: String] = [:]
        for name in [
            "active", "any-link", "-webkit-any-link", "autofill", "-webkit-autofill", "buffering", "checked",
            "corner-present", "decrement", "default", "defined", "disabled", "double-button", "empty", "enabled",
            "end", "first-child", "first-of-type", "focus", "focus-visible", "focus-within", "fullscreen",
            "-webkit-full-screen", "future", "horizontal", "hover", "in-range", "increment", "indeterminate",
            "invalid", "last-child", "last-of-type", "link", "modal", "muted", "no-button", "only-child",
            "only-of-type", "optional", "out-of-range", "past", "paused", "placeholder-shown", "playing",
            "read-only", "read-write", "required", "root", "scope", "seeking", "stalled", "single-button", "start",
            "target", "user-invalid", "user-valid", "valid", "vertical", "visited", "volume-locked",
            "window-inactive", "-webkit-autofill-and-obscured", "-webkit-autofill-strong-password",
            "-webkit-autofill-strong-password-viewable", "-webkit-drag",
        ] { t[name] = "" }
        for name in [
            "dir", "has", "is", "matches", "lang", "not", "nth-child", "nth-last-child", "nth-last-of-type",
            "nth-of-type", "state", "where", "-webkit-any",
        ] { t[name] = "required" }
        t["host"] = "optional"
        return t
    }()

    /// Single-colon forms that are pseudo-elements.
    static let compatibilityPseudoElements: [String: PseudoElementKind] = [
        "after": .after, "before": .before, "first-letter": .firstLetter, "first-line": .firstLine,
    ]

    static let userAgentParts: Set<String> = [
        "-webkit-caps-lock-indicator", "-webkit-color-swatch", "-webkit-color-swatch-wrapper",
        "-webkit-contacts-auto-fill-button", "-webkit-credentials-auto-fill-button",
        "-webkit-credit-card-auto-fill-button",
        "-webkit-date-and-time-value", "-webkit-datetime-edit", "-webkit-datetime-edit-day-field",
        "-webkit-datetime-edit-fields-wrapper", "-webkit-datetime-edit-hour-field",
        "-webkit-datetime-edit-meridiem-field",
        "-webkit-datetime-edit-millisecond-field", "-webkit-datetime-edit-minute-field",
        "-webkit-datetime-edit-month-field",
        "-webkit-datetime-edit-second-field", "-webkit-datetime-edit-text", "-webkit-datetime-edit-year-field",
        "-webkit-generic-cue-root", "-webkit-inner-spin-button", "-webkit-list-button", "-webkit-media-controls",
        "-webkit-media-text-track-container", "-webkit-media-text-track-display",
        "-webkit-media-text-track-display-backdrop",
        "-webkit-media-text-track-region", "-webkit-media-text-track-region-container", "-webkit-meter-bar",
        "-webkit-meter-even-less-good-value", "-webkit-meter-inner-element", "-webkit-meter-optimum-value",
        "-webkit-meter-suboptimum-value", "-webkit-progress-bar", "-webkit-progress-inner-element",
        "-webkit-progress-value",
        "-webkit-search-cancel-button", "-webkit-search-decoration", "-webkit-search-results-button",
        "-webkit-search-results-decoration", "-webkit-slider-container", "-webkit-slider-runnable-track",
        "-webkit-slider-thumb", "-webkit-strong-password-auto-fill-button", "-webkit-textfield-decoration-container",
        "-webkit-validation-bubble", "-webkit-validation-bubble-arrow", "-webkit-validation-bubble-arrow-clipper",
        "-webkit-validation-bubble-body", "-webkit-validation-bubble-heading", "-webkit-validation-bubble-icon",
        "-webkit-validation-bubble-message", "-webkit-validation-bubble-text-block", "details-content",
        "file-selector-button", "placeholder",
    ]
    static let userAgentPartAliases: Set<String> = ["-webkit-file-upload-button", "-webkit-input-placeholder"]
    static let scrollbarParts: Set<String> = [
        "-webkit-resizer", "-webkit-scrollbar", "-webkit-scrollbar-button", "-webkit-scrollbar-corner",
        "-webkit-scrollbar-thumb", "-webkit-scrollbar-track", "-webkit-scrollbar-track-piece",
    ]
    /// Known names that this context does not enable (so they are not "unknown -webkit-" either).
    static let disabledPseudoElements: Set<String> = [
        "-apple-attachment-controls-container", "-internal-loading-auto-fill-button", "-internal-writing-suggestions",
        "-internal-color-swatch-overlay", "-internal-cue-background", "target-text", "thumb", "track",
        "view-transition",
        "view-transition-group", "view-transition-image-pair", "view-transition-new", "view-transition-old",
    ]

    /// CSSSelector::parsePseudoElementName for `::name`.
    static func pseudoElement(_ lower: String) -> PseudoElementKind? {
        switch lower {
        case "before": return .before
        case "after": return .after
        case "marker": return .marker
        case "backdrop": return .backdrop
        case "first-letter": return .firstLetter
        case "first-line": return .firstLine
        case "selection": return .selection
        case "grammar-error": return .grammarError
        case "spelling-error": return .spellingError
        case "highlight": return .highlight
        case "part": return .part
        case "slotted": return .slotted
        case "cue": return .cue
        default: break
        }
        if scrollbarParts.contains(lower) { return .scrollbar }
        if userAgentParts.contains(lower) { return .userAgentPart }
        if userAgentPartAliases.contains(lower) { return .userAgentPartLegacyAlias }
        if disabledPseudoElements.contains(lower) || lower.isEmpty { return nil }
        if lower.hasPrefix("-webkit-") { return .webKitUnknown }
        return nil
    }

    static let scrollbarPseudoClasses: Set<String> = [
        "enabled", "disabled", "hover", "active", "horizontal", "vertical", "decrement", "increment", "start", "end",
        "double-button", "single-button", "no-button", "corner-present", "window-inactive",
    ]
    static let userActionPseudoClasses: Set<String> = ["hover", "focus", "active", "focus-visible", "focus-within"]
    static let logicalCombinationPseudoClasses: Set<String> = ["is", "matches", "where", "-webkit-any", "not", "has"]
    static let treeStructuralPseudoClasses: Set<String> = [
        "empty", "first-child", "first-of-type", "last-child", "last-of-type", "only-child", "only-of-type",
        "nth-child", "nth-of-type", "nth-last-child", "nth-last-of-type", "root",
    ]
}
