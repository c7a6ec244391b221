// The WebKit check the TDS generator is given: ContentRules' port of WebKit's url-filter parser.

import ContentRules
import TDSGenerator

extension RuleRegex {
    public static let webKit: FilterCheck = { filter in
        let status = URLFilter.parse(filter, caseSensitive: false).status
        switch status {
        case .ok: return .ok
        case .matchesEverything: return .matchesEverything(status.message)
        default: return .rejected(status.message)
        }
    }
}
