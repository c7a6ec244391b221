// Domain normalisation for everything this module decodes: lowercase ASCII, punycode for non-ASCII
// (DomainNormalizer), then a host-name check, because WebKit's if-domain/unless-domain accept only
// lowercase ASCII and a stray "/" or ":" would silently never match.

import Domains
import StrictJSON

public enum DomainCheck {
    /// Already-normalised hosts (the vast majority of dataset entries) skip the IDNA round trip.
    @inline(__always)
    static func isPlainHost(_ s: String) -> Bool {
        var count = 0
        var previous: UInt8 = UInt8(ascii: ".")
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"):
                break
            case UInt8(ascii: "."):
                if previous == UInt8(ascii: ".") { return false }
            default:
                return false
            }
            previous = b
            count += 1
        }
        return count > 0 && previous != UInt8(ascii: ".")
    }

    /// Normalises `raw` into a host name, or returns why it cannot be one.
    public static func normalize(_ raw: String) -> Result<String, DomainProblem> {
        // Before any per-character work: IDNA on a hostile 200 MB "domain" would take minutes.
        if raw.utf8.count > DecodingLimits.hostBytes * 4 {
            return .failure(
                DomainProblem(
                    message:
                        "\(quoted(raw)) is \(raw.utf8.count) bytes long, not a host name (at most "
                        + "\(DecodingLimits.hostBytes))"
                ))
        }
        if isPlainHost(raw) {
            guard raw.utf8.count <= DecodingLimits.hostBytes else {
                return .failure(
                    DomainProblem(
                        message:
                            "\(quoted(raw)) is \(raw.utf8.count) bytes long, not a host name (at most "
                            + "\(DecodingLimits.hostBytes))"
                    ))
            }
            return .success(raw)
        }
        let normalized: String
        do {
            normalized = try DomainNormalizer.normalize(raw)
        } catch let error as DomainError {
            switch error {
            case .empty: return .failure(DomainProblem(message: "empty domain"))
            case .invalid(_, let reason):
                return .failure(DomainProblem(message: "cannot normalise domain \(quoted(raw)): \(reason)"))
            }
        } catch {
            return .failure(DomainProblem(message: "cannot normalise domain \(quoted(raw)): \(error)"))
        }
        guard isPlainHost(normalized) else {
            return .failure(DomainProblem(message: "\(quoted(raw)) is not a host name"))
        }
        return .success(normalized)
    }
}

public struct DomainProblem: Error, Sendable {
    public let message: String
}
