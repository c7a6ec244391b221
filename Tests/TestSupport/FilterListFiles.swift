// Where the tests find EasyPrivacy and EasyList: Debian's webext-ublock-origin-firefox ships them
// (scripts/install-deps.sh test installs it); nothing of the lists is in the repository. Absent: the test skips.

import Foundation
import XCTest

public enum FilterListFiles {
    /// The directory of uBlock Origin's bundled EasyList lists in Debian's package.
    public static let directory =
        "/usr/share/mozilla/extensions/{ec8030f7-c20a-464f-9b0e-13a3a9e97384}/uBlock0@raymondhill.net/assets/"
        + "thirdparties/easylist"

    /// The path of `name` (easyprivacy.txt, easylist.txt), or an XCTSkip naming the package.
    public static func path(_ name: String) throws -> String {
        let path = directory + "/" + name
        guard FileManager.default.fileExists(atPath: path) else {
            throw XCTSkip("\(path) is absent: install webext-ublock-origin-firefox (scripts/install-deps.sh test)")
        }
        return path
    }
}
