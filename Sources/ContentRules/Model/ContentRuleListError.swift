// WebKit's content-rule-list errors (ContentExtensionError.h / .cpp), by name and with WebKit's message text
// character for character, so that `radarblock validate` says exactly what WebKit would say.
// Numeric codes are deliberately absent: they shifted between WebKit versions; names did not.

/// One of WebKit's rule-list compile errors. The raw value is WebKit's enumerator name.
public enum ContentRuleListError: String, Error, CaseIterable, Sendable {
    case jsonInvalid = "JSONInvalid"
    case jsonTopLevelStructureNotAnArray = "JSONTopLevelStructureNotAnArray"
    /// Declared by WebKit but never produced by its parser.
    case jsonInvalidObjectInTopLevelArray = "JSONInvalidObjectInTopLevelArray"
    case jsonInvalidRule = "JSONInvalidRule"
    /// Only WebKit versions with `_identifier` support (2.52+) produce it; the installed 2.50.6 ignores the key.
    case jsonInvalidRuleIdentifier = "JSONInvalidRuleIdentifier"
    case jsonContainsNoRules = "JSONContainsNoRules"
    case jsonInvalidTrigger = "JSONInvalidTrigger"
    case jsonInvalidURLFilterInTrigger = "JSONInvalidURLFilterInTrigger"
    case jsonInvalidTriggerFlagsArray = "JSONInvalidTriggerFlagsArray"
    case jsonInvalidStringInTriggerFlagsArray = "JSONInvalidStringInTriggerFlagsArray"
    case jsonInvalidConditionList = "JSONInvalidConditionList"
    case jsonDomainNotLowerCaseASCII = "JSONDomainNotLowerCaseASCII"
    case jsonMultipleConditions = "JSONMultipleConditions"
    case jsonTooManyRules = "JSONTooManyRules"
    case jsonInvalidRequestMethod = "JSONInvalidRequestMethod"
    case jsonInvalidAction = "JSONInvalidAction"
    case jsonInvalidActionType = "JSONInvalidActionType"
    case jsonInvalidCSSDisplayNoneActionType = "JSONInvalidCSSDisplayNoneActionType"
    case jsonInvalidNotification = "JSONInvalidNotification"
    case jsonInvalidRegex = "JSONInvalidRegex"
    case jsonRedirectMissing = "JSONRedirectMissing"
    case jsonRedirectExtensionPathDoesNotStartWithSlash = "JSONRedirectExtensionPathDoesNotStartWithSlash"
    case jsonRedirectURLSchemeInvalid = "JSONRedirectURLSchemeInvalid"
    case jsonRedirectToJavaScriptURL = "JSONRedirectToJavaScriptURL"
    case jsonRedirectURLInvalid = "JSONRedirectURLInvalid"
    case jsonRedirectInvalidType = "JSONRedirectInvalidType"
    case jsonRedirectInvalidPort = "JSONRedirectInvalidPort"
    case jsonRedirectInvalidQuery = "JSONRedirectInvalidQuery"
    case jsonRedirectInvalidFragment = "JSONRedirectInvalidFragment"
    case jsonRemoveParametersNotStringArray = "JSONRemoveParametersNotStringArray"
    case jsonAddOrReplaceParametersNotArray = "JSONAddOrReplaceParametersNotArray"
    case jsonAddOrReplaceParametersKeyValueNotADictionary = "JSONAddOrReplaceParametersKeyValueNotADictionary"
    case jsonAddOrReplaceParametersKeyValueMissingKeyString = "JSONAddOrReplaceParametersKeyValueMissingKeyString"
    case jsonAddOrReplaceParametersKeyValueMissingValueString = "JSONAddOrReplaceParametersKeyValueMissingValueString"
    case jsonModifyHeadersNotArray = "JSONModifyHeadersNotArray"
    case jsonModifyHeadersInfoNotADictionary = "JSONModifyHeadersInfoNotADictionary"
    case jsonModifyHeadersMissingOperation = "JSONModifyHeadersMissingOperation"
    case jsonModifyHeadersInvalidOperation = "JSONModifyHeadersInvalidOperation"
    case jsonModifyHeadersMissingHeader = "JSONModifyHeadersMissingHeader"
    case jsonModifyHeadersMissingValue = "JSONModifyHeadersMissingValue"
    case jsonModifyHeadersInvalidPriority = "JSONModifyHeadersInvalidPriority"
    /// WebKit's NFA spill file could not be written; never produced by validation.
    case errorWritingSerializedNFA = "ErrorWritingSerializedNFA"

    /// WebKit's name for the error, e.g. "JSONInvalidRegex".
    public var name: String { rawValue }

    /// WebKit's message (`std::error_code::message()` of the "content extension" category), verbatim.
    public var message: String {
        switch self {
        case .jsonInvalid: return "Failed to parse the JSON String."
        case .jsonTopLevelStructureNotAnArray: return "Invalid input, the top level structure is not an array."
        case .jsonInvalidObjectInTopLevelArray: return "Invalid object in the top level array."
        case .jsonInvalidRule: return "Invalid rule."
        case .jsonInvalidRuleIdentifier: return "Invalid rule identifier, which must be an integer."
        case .jsonContainsNoRules: return "Empty extension."
        case .jsonInvalidTrigger: return "Invalid trigger object."
        case .jsonInvalidURLFilterInTrigger: return "Invalid url-filter object."
        case .jsonInvalidTriggerFlagsArray: return "Invalid trigger flags array."
        case .jsonInvalidStringInTriggerFlagsArray: return "Invalid string in the trigger flags array."
        case .jsonInvalidConditionList:
            return "Invalid list of if-domain, unless-domain, if-top-url, or unless-top-url conditions."
        case .jsonDomainNotLowerCaseASCII:
            return "Domains must be lower case ASCII. Use punycode to encode non-ASCII characters."
        case .jsonMultipleConditions:
            return
                "A trigger cannot have more than one condition (if-domain, unless-domain, if-top-url, or "
                + "unless-top-url)"
        case .jsonTooManyRules: return "Too many rules in JSON array."
        case .jsonInvalidRequestMethod:
            return
                "The request-method string must be \"get\", \"head\", \"options\", \"trace\", \"put\", \"delete\", "
                + "\"post\", \"patch\", or \"connect\"."
        case .jsonInvalidAction: return "Invalid action object."
        case .jsonInvalidActionType: return "Invalid action type."
        case .jsonInvalidCSSDisplayNoneActionType: return "Invalid css-display-none action type. Requires a selector."
        case .jsonInvalidNotification: return "A notify action must have a string notification"
        case .jsonInvalidRegex: return "Invalid or unsupported regular expression."
        case .jsonRedirectMissing: return "A redirect action must have a redirect member"
        case .jsonRedirectExtensionPathDoesNotStartWithSlash: return "A redirect extension path must start with a slash"
        case .jsonRedirectURLSchemeInvalid: return "A redirect url scheme must be a valid scheme"
        case .jsonRedirectToJavaScriptURL: return "A redirect url can't have a scheme of javascript"
        case .jsonRedirectURLInvalid: return "A redirect url must be valid"
        case .jsonRedirectInvalidType:
            return
                "A redirect must have a member named \"extension-path\", \"regex-substitution\", \"transform\" or "
                + "\"url\""
        case .jsonRedirectInvalidPort:
            return "A redirect port must be either empty or a number between 0 and 65535, inclusive"
        case .jsonRedirectInvalidQuery: return "A redirect query must either be empty or begin with '?'"
        case .jsonRedirectInvalidFragment: return "A redirect fragment must either be empty or begin with '#'"
        case .jsonRemoveParametersNotStringArray: return "A remove-parameters value must be an array of strings"
        case .jsonAddOrReplaceParametersNotArray: return "An add-or-replace-parameters value must be an array"
        case .jsonAddOrReplaceParametersKeyValueNotADictionary:
            return "Members of the add-or-replace-parameters array must be a dictionary"
        case .jsonAddOrReplaceParametersKeyValueMissingKeyString:
            return "Members of the add-or-replace-parameters array must contain a key that is a string"
        case .jsonAddOrReplaceParametersKeyValueMissingValueString:
            return "Members of the add-or-replace-parameters array must contain a value that is a string"
        case .jsonModifyHeadersNotArray: return "A headers member must be an array"
        case .jsonModifyHeadersInfoNotADictionary: return "A modify-headers operation must be a dictionary"
        case .jsonModifyHeadersMissingOperation: return "A modify-headers operation must have an operation"
        case .jsonModifyHeadersInvalidOperation:
            return "A modify-headers operation must have an operation that is either \"set\", \"append\", or \"remove\""
        case .jsonModifyHeadersMissingHeader: return "A modify-headers operation must have a header"
        case .jsonModifyHeadersMissingValue:
            return "A modify-headers operation of \"set\" or \"append\" must have a value"
        case .jsonModifyHeadersInvalidPriority: return "A priority must be a positive integer"
        case .errorWritingSerializedNFA: return "Internal I/O error"
        }
    }
}

/// A rule list WebKit would refuse: WebKit's error, where it happened, and (separately from WebKit's
/// message, which never says where) our own detail for people fixing the file.
public struct RuleListValidationError: Error, Sendable, Equatable, CustomStringConvertible {
    public let error: ContentRuleListError
    /// 0-based index in the top-level JSON array; nil for list-level errors (JSON syntax, not an array,
    /// too many rules, no rules).
    public let ruleIndex: Int?
    /// Our own explanation, e.g. "line 3, column 7: unexpected character ']'" or the offending regex.
    public let detail: String?

    public init(_ error: ContentRuleListError, ruleIndex: Int? = nil, detail: String? = nil) {
        self.error = error
        self.ruleIndex = ruleIndex
        self.detail = detail
    }

    public var message: String { error.message }

    public var description: String {
        var s = ruleIndex.map { "rule \($0): " } ?? ""
        s += "\(error.name): \(error.message)"
        if let detail { s += " (\(detail))" }
        return s
    }
}
