// TermGraph: WebKit's Term::generateGraph (contentextensions/Term.h), the one home of the Thompson
// shapes a term sequence becomes. Two graph owners build with it: the reference matcher below
// (URLFilter.matches, one pattern, simulated directly) and RuleCompiler's batch NFA (many patterns over a
// class alphabet, then determinised). They differ in how they store and run a graph, not in its shape,
// so the shape lives once here; MatcherPropertyTests still compares the two owners end to end, which
// checks the compiler's prefix tree, batching, alphabet, DFA, minimiser and bytecode against the
// straightforward simulation. The shape itself is checked against real WebKit (scripts/test-webkit.sh).

/// Where the construction puts its nodes and edges.
public protocol TermGraphSink {
    associatedtype Node
    mutating func newNode() -> Node
    mutating func epsilon(from: Node, to: Node)
    mutating func characterSet(_ set: URLFilterCharacterSet, from: Node, to: Node)
}

extension TermGraphSink {
    /// Adds the graph of `term` between `from` and `to` (WebKit's Term::generateGraph shapes).
    @inlinable
    public mutating func generate(_ term: URLFilterTerm, from: Node, to: Node) {
        switch term.quantifier {
        case .one:
            atom(term, from: from, to: to)
        case .zeroOrOne:
            atom(term, from: from, to: to)
            epsilon(from: from, to: to)
        case .zeroOrMore, .oneOrMore:
            let repeatStart = newNode(), repeatEnd = newNode()
            epsilon(from: from, to: repeatStart)
            atom(term, from: repeatStart, to: repeatEnd)
            epsilon(from: repeatEnd, to: repeatStart)
            epsilon(from: repeatEnd, to: to)
            if term.quantifier == .zeroOrMore { epsilon(from: from, to: to) }
        }
    }

    /// The term without its quantifier: one character-set edge, or the group's terms in a chain.
    @inlinable
    public mutating func atom(_ term: URLFilterTerm, from: Node, to: Node) {
        switch term {
        case .characterSet(let set, _):
            characterSet(set, from: from, to: to)
        case .group(let inner, _):
            if inner.isEmpty { epsilon(from: from, to: to); return }
            var current = from
            for (i, t) in inner.enumerated() {
                let next = i == inner.count - 1 ? to : newNode()
                generate(t, from: current, to: next)
                current = next
            }
        }
    }
}
