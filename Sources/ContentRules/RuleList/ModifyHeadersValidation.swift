// modify-headers actions as WebKit's ModifyHeadersAction::parse checks them (ContentExtensionActions.cpp):
// request-headers, then response-headers (each element in order), then priority.

import StrictJSON

enum ModifyHeadersValidation {
    /// The first problem WebKit would report for this action object, or nil when WebKit accepts it.
    static func check(action: JSONObject) -> ActionCheckFailure? {
        for key in ["request-headers", "response-headers"] {
            guard let value = action[key] else { continue } // absent is fine; JSON null is present
            guard case .array(let operations) = value else {
                return ActionCheckFailure(.jsonModifyHeadersNotArray, "\(key) is \(RuleListParser.describe(value))")
            }
            for (i, operation) in operations.enumerated() {
                if let error = checkOperation(operation) {
                    return ActionCheckFailure(error, "\(key)[\(i)]")
                }
            }
        }
        guard let value = action["priority"], case .number(let number) = value else {
            return ActionCheckFailure(
                .jsonModifyHeadersInvalidPriority,
                action["priority"].map { "priority is \(RuleListParser.describe($0))" } ?? "the action has no priority")
        }
        let priority = webKitIntegerConversion(number)
        if priority < 0 {
            return ActionCheckFailure(
                .jsonModifyHeadersInvalidPriority, "priority \(number) is \(priority) as WebKit reads it")
        }
        return nil
    }

    static func checkOperation(_ value: JSONValue) -> ContentRuleListError? {
        guard case .object(let o) = value else { return .jsonModifyHeadersInfoNotADictionary }
        guard case .string(let operation)? = o["operation"] else { return .jsonModifyHeadersMissingOperation }
        guard case .string? = o["header"] else { return .jsonModifyHeadersMissingHeader }
        let hasValue: Bool
        if case .string? = o["value"] { hasValue = true } else { hasValue = false }
        switch operation {
        case "set", "append": return hasValue ? nil : .jsonModifyHeadersMissingValue
        case "remove": return nil
        default: return .jsonModifyHeadersInvalidOperation
        }
    }

    /// JSON::Value::asInteger is `static_cast<int>(double)`: truncation toward zero, and on x86-64 (cvttsd2si)
    /// every value outside Int32's range becomes Int32.min, so a huge priority is negative and refused.
    static func webKitIntegerConversion(_ d: Double) -> Int32 {
        guard d.isFinite else { return Int32.min }
        let t = d.rounded(.towardZero)
        guard t >= -2147483648.0, t <= 2147483647.0 else { return Int32.min }
        return Int32(t)
    }
}
