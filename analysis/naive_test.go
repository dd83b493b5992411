package analysis

import (
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
)

// naiveFacts is a slow, obviously-correct restatement of what textScan
// computes, working on whole lines in memory. The differential tests and
// the fuzz targets compare the two.
func naiveFacts(text string) *Facts {
	f := &Facts{Bytes: int64(len(text))}
	lines := strings.Split(text, "\n")
	if strings.HasSuffix(text, "\n") {
		lines = lines[:len(lines)-1]
	}
	if text == "" {
		lines = nil
	}
	f.Lines = len(lines)
	stage1 := regexp.MustCompile(`"[^"]*error[^"]*":`)
	stage2 := regexp.MustCompile(`(^Error:|^ERROR:|^error:|\]: error|Link: error|Error occurred|failed with error|[Ee]xception|Fatal|FATAL)`)
	inBlock, prose := naiveBlockLines(text, lines)
	for n, line := range lines {
		low := foldString(line)
		for i, k := range completionKeywords {
			if naiveWord(line, k) {
				f.Keywords |= 1 << uint(i)
			}
		}
		for i, k := range noWorkPatterns {
			if naiveWord(line, k) {
				f.NoWork |= 1 << uint(i)
			}
		}
		q := 0
		for _, k := range questionPatterns {
			if naiveWord(line, k) {
				q++
			}
		}
		if naiveSeq(line, "awaiting", "input") {
			q++
		}
		if naiveSeq(line, "waiting", "response") {
			q++
		}
		f.Questions += q
		if containsAny(low, "running tests", "npm test", "bats", "pytest", "jest") {
			f.TestLines++
		}
		if containsAny(low, "implementing", "creating", "writing", "adding", "function", "class") {
			f.ImplLines++
		}
		head := line
		if len(head) > headCap {
			head = head[:headCap]
		}
		if !f.HasSummary && !inBlock[n] && containsAny(low, "summary", "completed", "implemented") {
			f.HasSummary = true
			f.Summary = cutBytes([]byte(head), summaryCut)
		}
		if !stage1.MatchString(line) && stage2.MatchString(line) {
			f.ErrorCount++
			if len(f.ErrorLines) < maxErrLines {
				f.ErrorLines = append(f.ErrorLines, ErrorLine{Line: n + 1, Text: strings.TrimSuffix(head, "\r")})
			}
		}
	}
	f.Prose = prose
	naiveBlocks(text, f)
	naivePreamble(text, f)
	naiveStates(lines, f)
	return f
}

// naiveWord: grep -iw for a fixed phrase on one line.
func naiveWord(line, w string) bool {
	low := foldString(line)
	for from := 0; ; {
		i := strings.Index(low[from:], w)
		if i < 0 {
			return false
		}
		i += from
		from = i + 1
		before, after := true, true
		if i > 0 {
			r, _ := utf8.DecodeLastRuneInString(line[:i])
			before = !isWordRune(r)
		}
		if j := i + len(w); j < len(line) {
			r, _ := utf8.DecodeRuneInString(line[j:])
			after = !isWordRune(r)
		}
		if before && after {
			return true
		}
	}
}

// naiveSeq: grep -iw "a.*b" on one line: the earliest word-start "a",
// then any word-end "b" starting at or after its end.
func naiveSeq(line, a, b string) bool {
	low := foldString(line)
	aEnd := -1
	for from := 0; ; {
		i := strings.Index(low[from:], a)
		if i < 0 {
			return false
		}
		i += from
		from = i + 1
		if i > 0 {
			if r, _ := utf8.DecodeLastRuneInString(line[:i]); isWordRune(r) {
				continue
			}
		}
		aEnd = i + len(a)
		break
	}
	for from := aEnd; ; {
		k := strings.Index(low[from:], b)
		if k < 0 {
			return false
		}
		k += from
		from = k + 1
		j := k + len(b)
		if j < len(line) {
			if r, _ := utf8.DecodeRuneInString(line[j:]); isWordRune(r) {
				continue
			}
		}
		return true
	}
}

// markerEvent is a status-block marker found in a text.
type markerEvent struct {
	start, end int // its first and last byte
	isStart    bool
}

// naiveMarkers finds every start and end marker, in order of their last
// byte, as the automaton reports them.
func naiveMarkers(text string) []markerEvent {
	var evs []markerEvent
	for i := 0; i+len(startMarker) <= len(text); i++ {
		if text[i:i+len(startMarker)] == startMarker {
			evs = append(evs, markerEvent{i, i + len(startMarker) - 1, true})
		}
	}
	for i := 0; i+len(endMarker) <= len(text); i++ {
		if text[i:i+len(endMarker)] == endMarker {
			evs = append(evs, markerEvent{i, i + len(endMarker) - 1, false})
		}
	}
	sort.SliceStable(evs, func(a, b int) bool { return evs[a].end < evs[b].end })
	return evs
}

// naiveBlockLines tells for each line whether it is part of a status
// block (one is open at its start, or one starts on it), and finds the
// prose: the last paragraph (of lines outside the blocks and the
// ralph:state markers, each cut to headCap bytes, words split at ASCII
// blanks and joined by single spaces, cut to proseCap bytes) before the
// block that counts (the last closed one, else the open one).
func naiveBlockLines(text string, lines []string) (inBlock []bool, prose string) {
	evs := naiveMarkers(text)
	marker := regexp.MustCompile(`<!--[ \t]{0,8}ralph:state`)
	inBlock = make([]bool, len(lines))
	var cur []string
	var last, openProse, closedProse string
	open, closed, body, k, from := false, false, 0, 0, 0
	join := func() string { return cutBytes([]byte(strings.Join(cur, " ")), proseCap) }
	for n, l := range lines {
		to := from + len(l) // the line's newline (or the text's end)
		inBlock[n] = open
		for ; k < len(evs) && evs[k].end < to; k++ {
			e := evs[k]
			if e.isStart {
				open, body = true, e.end+1
				inBlock[n] = true
				openProse = last
				if len(cur) > 0 {
					openProse = join()
				}
			} else if open && e.start >= body {
				open, closed = false, true
				closedProse = openProse
			}
		}
		from = to + 1
		head := l
		if len(head) > headCap {
			head = head[:headCap]
		}
		words := strings.FieldsFunc(head, func(r rune) bool { return r < utf8.RuneSelf && isSpace(byte(r)) })
		if inBlock[n] || marker.MatchString(l) || len(words) == 0 {
			if len(cur) > 0 {
				last = join()
			}
			cur = nil
			continue
		}
		cur = append(cur, words...)
	}
	switch {
	case closed:
		prose = closedProse
	case open:
		prose = openProse
	}
	return inBlock, prose
}

func naiveBlocks(text string, f *Facts) {
	evs := naiveMarkers(text)
	var nls []int
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			nls = append(nls, i)
		}
	}
	lineOf := func(i int) int { return sort.SearchInts(nls, i) + 1 }
	open := false
	var cur StatusBlock
	var last *StatusBlock
	body := 0
	parse := func(from, to int) {
		for _, l := range strings.Split(text[from:to], "\n") {
			l = strings.ReplaceAll(l, "\r", "")
			l = strings.TrimLeft(l, spaceChars)
			if len(l) > blockCap {
				l = l[:blockCap]
			}
			parseBlockLine(&cur, []byte(l))
		}
	}
	for _, e := range evs {
		if e.isStart {
			f.Blocks++
			open = true
			cur = StatusBlock{Line: lineOf(e.start), TestsStatus: "UNKNOWN"}
			body = e.end + 1
			continue
		}
		if open && e.start >= body {
			parse(body, e.start)
			cur.Complete = true
			b := cur
			last = &b
			open = false
			f.ClosedBlock++
		}
	}
	if last != nil {
		f.Block = last
	} else if open {
		parse(body, len(text))
		b := cur
		f.Block = &b
	}
}

func naivePreamble(text string, f *Facts) {
	t := strings.ReplaceAll(text, "\r", "")
	if i := strings.Index(t, startMarker); i >= 0 {
		t = t[:i]
	}
	n := 0
	for _, l := range strings.Split(t, "\n") {
		l = strings.TrimLeft(l, spaceChars)
		if len(l) > preCap {
			l = l[:preCap]
		}
		l = strings.TrimRight(l, spaceChars)
		if l == "" {
			if n > 0 {
				break
			}
			continue
		}
		n++
		if denialLine(l) {
			f.Denial = true
			f.DenialLine = cutBytes([]byte(l), 200)
			break
		}
		if n >= preMaxLines {
			break
		}
	}
}

func naiveStates(lines []string, f *Facts) {
	opener := regexp.MustCompile(`<!--[ \t]{0,8}ralph:state`)
	for _, line := range lines {
		locs := opener.FindAllStringIndex(line, -1)
		// FindAll does not report overlapping matches; openers cannot overlap.
		for k, loc := range locs {
			rest := line[loc[1]:]
			if k+1 < len(locs) {
				// the next opener's "ralph:state" starts a new capture
				next := locs[k+1][1] - len("ralph:state")
				rest = line[loc[1]:next]
			}
			rest = strings.ReplaceAll(rest, "\r", "")
			if len(rest) > stateCap {
				rest = rest[:stateCap]
			}
			i := strings.Index(rest, "-->")
			if i < 0 {
				continue
			}
			name, ok := parseStateName([]byte(rest[:i]))
			if !ok || len(f.States) >= maxStates {
				continue
			}
			dup := false
			for _, h := range f.States {
				dup = dup || h == name
			}
			if !dup {
				f.States = append(f.States, name)
			}
		}
	}
}
