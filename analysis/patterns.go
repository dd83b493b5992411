package analysis

// The phrases the text rules look for on each line, searched for in the
// line case-folded (ASCII); each match is handled at the byte where it
// ends, in the line's order.

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
	low    []byte   // the same, as bytes
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
	for i := range ps {
		ps[i].low = []byte(ps[i].text)
	}
	return ps
}()

// byFirst lists the patterns by their first byte; tri has bit triHash(abc)
// set when a pattern has abc, in any case, at its offset 0 or 1 (scan tests
// every other offset; it looks for the quotes, shorter, by themselves).
var byFirst, tri = func() (t [256][]int, s [1 << 10]uint64) {
	for pi, p := range patterns {
		t[p.text[0]] = append(t[p.text[0]], pi)
		for m := range 16 * min(1, len(p.text)/4) {
			k := []byte(p.text[m/8 : m/8+3])
			for j, c := range k {
				if m>>j&1 == 1 && c >= 'a' && c <= 'z' {
					k[j] = c - 'a' + 'A'
				}
			}
			s[triHash(k)/64] |= 1 << (triHash(k) % 64)
		}
	}
	return t, s
}()

func triHash(b []byte) uint32 { // 16 bits of b's first three bytes
	return (uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16) * 0x9e3779b1 >> 16
}

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
