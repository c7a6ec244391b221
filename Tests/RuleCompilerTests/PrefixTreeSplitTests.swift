// PrefixTree.split (issue 40): a batch over its limit is cut between generation-root groups, so a big group is
// retried apart from the small groups that multiply; every part is non-empty and smaller, so retrying ends.

import ContentRules
import XCTest

@testable import RuleCompiler

final class PrefixTreeSplitTests: XCTestCase {
    func tree(_ patterns: [String]) -> (PrefixTree, [Int32]) {
        var terms = TermTable(), tree = PrefixTree(), lists = ActionListTable()
        for (i, p) in patterns.enumerated() {
            let filter = URLFilter.parse(p, caseSensitive: false)
            XCTAssertEqual(filter.status, .ok, p)
            let v = tree.insert(filter.terms.map { terms.intern($0) }, fixedLength: terms.fixedLength)
            tree.action[Int(v)] = lists.intern([UInt64(i)])
        }
        let batch = tree.batches(terms: terms, maxNodes: 75_000)
        XCTAssertEqual(batch.count, 1)
        return (tree, batch[0])
    }

    func testCutsBetweenGroupsNearTheShares() {
        // Six unanchored literals share the leading `.*` group; two `.*A.*B` patterns are groups of their own.
        let literals = ["aa1", "bb2", "cc3", "dd4", "ee5", "ff6"]
        let (tree, batch) = tree(literals + ["xx.*yy", "uu.*vv"])
        let parts = tree.split(batch, ways: 4)
        XCTAssertEqual(parts.flatMap { $0 }, batch)
        for part in parts {
            XCTAssertFalse(part.isEmpty)
            // No generation-root group is cut: each root lies in one part only.
            let roots = Set(part.map { tree.generationRoot[Int($0)] })
            for other in parts where other != part {
                XCTAssertTrue(roots.isDisjoint(with: other.map { tree.generationRoot[Int($0)] }))
            }
        }
        XCTAssertTrue(parts.contains { $0.count == literals.count }, "the literals' group is retried alone")
    }

    func testOneGroupIsCutByVertices() {
        let (tree, batch) = tree(["aa1", "bb2", "cc3", "dd4", "ee5"])
        let parts = tree.split(batch, ways: 4)
        XCTAssertEqual(parts.count, 4)
        XCTAssertEqual(parts.flatMap { $0 }, batch)
        XCTAssertTrue(parts.allSatisfy { !$0.isEmpty && $0.count < batch.count })
        XCTAssertEqual(tree.split(Array(batch.prefix(2)), ways: 4).map(\.count), [1, 1])
    }
}
