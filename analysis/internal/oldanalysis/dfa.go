package oldanalysis

// A small Aho-Corasick automaton, compiled into a DFA over case-folded bytes.
// Every text the analyzer reads runs through it once: each pattern is
// reported at the byte where it ends, so matching works on a stream cut into
// pieces anywhere and needs no look-back buffer of its own.

// patKind says what a match means to the text scanner.
type patKind uint8

const (
	pkKeyword    patKind = iota // completion keyword, whole word, any case
	pkNoWork                    // "nothing to do" family, whole word, any case
	pkQuestion                  // the agent asks the user something, whole word, any case
	pkTest                      // test-command line, substring, any case
	pkImpl                      // implementation line, substring, any case
	pkSummary                   // summary line candidate, substring, any case
	pkErr                       // error pattern (stage 2), exact case (verified)
	pkQuote                     // '"' (stage 1 bookkeeping)
	pkQuoteColon                // '":' (stage 1)
	pkErrorWord                 // "error" inside a quoted key (stage 1), exact case
	pkStart                     // ---RALPH_STATUS---
	pkEnd                       // ---END_RALPH_STATUS---
	pkState                     // ralph:state
	pkAwaiting                  // "awaiting" (word start) for "awaiting.*input"
	pkInput                     // "input" (word end)
	pkWaiting                   // "waiting" (word start) for "waiting.*response"
	pkResponse                  // "response" (word end)
)

type pattern struct {
	text   string   // lower-case form searched for
	kind   patKind  //
	idx    int      // index within its family (keyword order, ...)
	verify []string // exact spellings accepted; nil accepts any case
}

// The pattern table. Orders inside families follow the bash loop's lists.
var patterns = func() []pattern {
	var ps []pattern
	add := func(kind patKind, verify []string, texts ...string) {
		for i, t := range texts {
			ps = append(ps, pattern{text: t, kind: kind, idx: i, verify: verify})
		}
	}
	add(pkKeyword, nil, completionKeywords...)
	add(pkNoWork, nil, noWorkPatterns...)
	add(pkQuestion, nil, questionPatterns...)
	add(pkTest, nil, "running tests", "npm test", "bats", "pytest", "jest")
	add(pkImpl, nil, "implementing", "creating", "writing", "adding", "function", "class")
	add(pkSummary, nil, "summary", "completed", "implemented")
	for _, v := range [][]string{
		{"]: error"}, {"Link: error"}, {"Error occurred"}, {"failed with error"},
		{"Exception", "exception"}, {"Fatal", "FATAL"},
	} {
		ps = append(ps, pattern{text: foldString(v[0]), kind: pkErr, verify: v})
	}
	ps = append(ps,
		pattern{text: `"`, kind: pkQuote},
		pattern{text: `":`, kind: pkQuoteColon},
		pattern{text: "error", kind: pkErrorWord, verify: []string{"error"}},
		pattern{text: "---ralph_status---", kind: pkStart, verify: []string{startMarker}},
		pattern{text: "---end_ralph_status---", kind: pkEnd, verify: []string{endMarker}},
		pattern{text: "ralph:state", kind: pkState, verify: []string{"ralph:state"}},
		pattern{text: "awaiting", kind: pkAwaiting},
		pattern{text: "input", kind: pkInput},
		pattern{text: "waiting", kind: pkWaiting},
		pattern{text: "response", kind: pkResponse},
	)
	return ps
}()

const (
	startMarker = "---RALPH_STATUS---"
	endMarker   = "---END_RALPH_STATUS---"
)

// completionKeywords, noWorkPatterns: the bash loop's word lists, in order.
var (
	completionKeywords = []string{"done", "complete", "finished", "all tasks complete", "project complete", "ready for review"}
	noWorkPatterns     = []string{"nothing to do", "no changes", "already implemented", "up to date"}
	// questionPatterns are upstream's (frankbria/ralph-claude-code #190)
	// fixed phrases; "awaiting.*input" and "waiting.*response" are handled
	// by their own kinds.
	questionPatterns = []string{"should i", "would you", "do you want", "which approach", "which option",
		"how should", "what should", "shall i", "do you prefer", "can you clarify", "could you",
		"what do you think", "please confirm", "need clarification", "your preference"}
)

func foldByte(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func foldString(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = foldByte(c)
	}
	return string(b)
}

type dfa struct {
	cls   [256]uint8
	ncls  int
	delta []uint16 // state*ncls + class -> state
	out   []uint64 // patterns ending in this state (bit = pattern index)
	// States are numbered so that exactly those at or above firstOut end a
	// pattern: the scan loop tests a register instead of loading out[].
	firstOut uint16
}

// buildDFA compiles the patterns into one Aho-Corasick automaton over
// case-folded byte classes, as a dense transition table.
func buildDFA(ps []pattern) *dfa {
	if len(ps) > 64 {
		panic("analysis: more than 64 patterns")
	}
	d := &dfa{}
	clsOf := d.byteClasses(ps)
	nodes := acTrie(ps, clsOf, d.ncls)
	acLinks(nodes, d.ncls)
	if len(nodes) > 1<<16 {
		panic("analysis: automaton too large")
	}
	d.pack(nodes)
	return d
}

// byteClasses sets d.cls and d.ncls: one class per distinct byte used by a
// pattern, plus class 0 for everything else; upper-case letters share
// their lower-case class. It returns each byte's own class.
func (d *dfa) byteClasses(ps []pattern) (clsOf [256]uint8) {
	var used [256]bool
	for _, p := range ps {
		for i := 0; i < len(p.text); i++ {
			used[p.text[i]] = true
		}
	}
	n := 1
	for c := 0; c < 256; c++ {
		if used[c] {
			clsOf[c] = uint8(n)
			n++
		}
	}
	for c := 0; c < 256; c++ {
		d.cls[c] = clsOf[foldByte(byte(c))]
	}
	d.ncls = n
	return clsOf
}

// acNode is a state of the automaton while it is built.
type acNode struct {
	next []int32 // by class; -1: no edge yet
	fail int32
	out  uint64
}

// acTrie is the trie of the patterns.
func acTrie(ps []pattern, clsOf [256]uint8, n int) []acNode {
	newNode := func() acNode {
		nx := make([]int32, n)
		for i := range nx {
			nx[i] = -1
		}
		return acNode{next: nx}
	}
	nodes := []acNode{newNode()}
	for pi, p := range ps {
		s := int32(0)
		for i := 0; i < len(p.text); i++ {
			c := clsOf[p.text[i]]
			if nodes[s].next[c] < 0 {
				nodes = append(nodes, newNode())
				nodes[s].next[c] = int32(len(nodes) - 1)
			}
			s = nodes[s].next[c]
		}
		nodes[s].out |= 1 << uint(pi)
	}
	return nodes
}

// acLinks adds the failure links breadth-first; missing edges become DFA
// transitions.
func acLinks(nodes []acNode, n int) {
	queue := []int32{}
	for c := 0; c < n; c++ {
		if t := nodes[0].next[c]; t >= 0 {
			nodes[t].fail = 0
			queue = append(queue, t)
		} else {
			nodes[0].next[c] = 0
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		nodes[s].out |= nodes[nodes[s].fail].out
		for c := 0; c < n; c++ {
			t := nodes[s].next[c]
			if t >= 0 {
				nodes[t].fail = nodes[nodes[s].fail].next[c]
				queue = append(queue, t)
			} else {
				nodes[s].next[c] = nodes[nodes[s].fail].next[c]
			}
		}
	}
}

// pack numbers the states (the root stays 0, states without output next,
// then the rest) and fills the transition and output tables.
func (d *dfa) pack(nodes []acNode) {
	n := d.ncls
	order := make([]int, 0, len(nodes))
	for i, nd := range nodes {
		if nd.out == 0 {
			order = append(order, i)
		}
	}
	d.firstOut = uint16(len(order))
	for i, nd := range nodes {
		if nd.out != 0 {
			order = append(order, i)
		}
	}
	newID := make([]uint16, len(nodes))
	for ni, oi := range order {
		newID[oi] = uint16(ni)
	}
	d.delta = make([]uint16, len(nodes)*n)
	d.out = make([]uint64, len(nodes))
	for ni, oi := range order {
		for c := 0; c < n; c++ {
			d.delta[ni*n+c] = newID[nodes[oi].next[c]]
		}
		d.out[ni] = nodes[oi].out
	}
}

var scanDFA = buildDFA(patterns)
