// What a rule does for the record it comes from (the provenance's "role"): one case per role the builders give,
// spelled in the provenance file as its `text`, followed by the url-filter form's name when the rule has one.

/// The role of a rule within its TDS rule, config entry or list.
public enum Role: Hashable, Sendable {
    /// Blocks: a TDS rule or default that decides the load, an attribution list's first rule.
    case block
    /// A TDS rule before the one that decides a click-to-load action: it matches first and blocks nothing.
    case otherRule
    /// Lets the load through: a TDS rule's exceptions, a click-to-load list's `exceptions`, a blocklist entry's
    /// exempt sites.
    case exception
    /// A TDS rule whose action is "ignore".
    case ignore
    /// Undoes the blocks before it (the attribution list's tracker default).
    case reset
    /// The attributed vendor's own loads, let through.
    case vendor
    /// The exemption of a tracker's (or an entity's) own sites.
    case sameEntity
    /// A click-to-load list's exemption of the entity's own sites.
    case firstParty
    /// Keeps top-level navigations unblocked (a request blocklist entry).
    case topLevel
    /// A cookie pop-up hiding rule.
    case hide
    /// The cookie pop-up list's exemption of the config's sites where it is off.
    case offSites
    /// A filter list's `$important` block: after the exceptions, which cannot cancel it.
    case important
    /// A filter list's one rule that keeps the page's own document and popups unblocked: the blocks before it carry
    /// no `resource-type` when their filter names no type, and this rule cancels them for those two types.
    case navigations
    /// The top-document part of a filter list's `$document` block: after the navigation rule.
    case documentBlock
    /// The ddg mode's one exemption of the temp list's sites and the user-unprotected sites together (source: the
    /// temp list).
    case tempListAndUserUnprotected
    /// The only rule of a list whose `contentBlocking.state` is not "enabled": the state as the config gives it,
    /// nil when it gives none.
    case contentBlocking(state: String?)

    private static let plain: [(Role, String)] = [
        (.block, "block"), (.otherRule, "other-rule"), (.exception, "exception"), (.ignore, "ignore"),
        (.reset, "reset"), (.vendor, "vendor"), (.sameEntity, "same-entity"), (.firstParty, "first-party"),
        (.topLevel, "top-level"), (.hide, "hide"), (.offSites, "off-sites"), (.important, "important"),
        (.navigations, "navigations"), (.documentBlock, "block document"),
        (.tempListAndUserUnprotected, "temp-list+user-unprotected"),
    ]
    private static let contentBlockingPrefix = "contentBlocking "

    /// The role as the provenance file writes it: "same-entity", `contentBlocking "disabled"`.
    public var text: String {
        if case .contentBlocking(let state) = self {
            return Self.contentBlockingPrefix + (state.map { "\"\($0)\"" } ?? "absent")
        }
        return Self.plain.first { $0.0 == self }!.1
    }

    /// The role `text` names, nil when it names none.
    public init?(text: String) {
        if let known = Self.plain.first(where: { $0.1 == text }) {
            self = known.0
            return
        }
        guard text.hasPrefix(Self.contentBlockingPrefix) else { return nil }
        let state = text.dropFirst(Self.contentBlockingPrefix.count)
        if state == "absent" {
            self = .contentBlocking(state: nil)
        } else if state.count >= 2, state.hasPrefix("\""), state.hasSuffix("\"") {
            self = .contentBlocking(state: String(state.dropFirst().dropLast()))
        } else {
            return nil
        }
    }
}
