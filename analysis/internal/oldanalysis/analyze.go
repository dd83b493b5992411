package oldanalysis

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ralphloop/ralph_loop/analysis/internal/oldanalysis/wire"
)

// Analyze reads one agent output as a stream and analyses it. It fails only
// when reading fails; malformed output is analysed as well as it can be.
//
// When r can seek, an output that starts like JSON is read once for the JSON
// decoders and, only if it turns out not to be JSON, read again as text;
// otherwise both readings share one pass.
func Analyze(r io.Reader, opts Options) (Result, error) {
	rs, seekable := r.(io.ReadSeeker)
	var start int64
	if seekable {
		var err error
		if start, err = rs.Seek(0, io.SeekCurrent); err != nil {
			seekable = false
		}
	}
	hint := family(opts)
	ring := opts.ExitCode != 0 && !opts.TimedOut

	if seekable && hint != wire.FamilyText {
		var stats rawStats
		src := &source{}
		src.init(r, &stats)
		if c, ok := firstByte(src); ok && (c == '{' || c == '[') {
			d := &decoder{src: src, keep: MaxResultText}
			d.run()
			src.drain()
			if src.err != nil {
				return Result{}, fmt.Errorf("read agent output: %w", src.err)
			}
			if p := d.pick(hint); p != nil {
				return build(opts, &stats, nil, d, p), nil
			}
			// Not JSON after all: read it again as text.
			if _, err := rs.Seek(start, io.SeekStart); err != nil {
				return Result{}, fmt.Errorf("read agent output again: %w", err)
			}
			return textAgain(r, opts, ring, d)
		}
		if _, err := rs.Seek(start, io.SeekStart); err != nil {
			return Result{}, fmt.Errorf("read agent output again: %w", err)
		}
		return textAgain(r, opts, ring, nil)
	}

	rd, err := onePass(r, hint, ring)
	if err != nil {
		return Result{}, err
	}
	return rd.build(opts), nil
}

// reading is one output read to its end: what build needs besides the
// options.
type reading struct {
	stats rawStats
	raw   *textFacts // the output as plain text
	d     *decoder   // the JSON reading; nil when the output cannot be JSON
	p     *parsed    // the JSON shape picked; nil means text
}

func (rd *reading) build(opts Options) Result {
	return build(opts, &rd.stats, rd.raw, rd.d, rd.p)
}

// onePass reads r once, as JSON (unless hint is text and when it starts
// like JSON) and as plain text at the same time, for a reader that cannot
// be read twice. ring keeps the last lines for the usage-limit phrases.
func onePass(r io.Reader, hint wire.Family, ring bool) (*reading, error) {
	rd := &reading{}
	raw := newTextScan(MaxResultText, ring)
	src := &source{}
	src.init(r, &rd.stats, raw)
	if hint != wire.FamilyText {
		if c, ok := firstByte(src); ok && (c == '{' || c == '[') {
			rd.d = &decoder{src: src, keep: MaxResultText}
			rd.d.run()
		}
	}
	src.drain()
	if src.err != nil {
		return nil, fmt.Errorf("read agent output: %w", src.err)
	}
	if rd.d != nil {
		rd.p = rd.d.pick(hint)
	}
	rd.raw = raw.finish()
	return rd, nil
}

// textAgain reads the whole output as plain text.
func textAgain(r io.Reader, opts Options, ring bool, d *decoder) (Result, error) {
	var stats rawStats
	raw := newTextScan(MaxResultText, ring)
	src := &source{}
	src.init(r, &stats, raw)
	src.drain()
	if src.err != nil {
		return Result{}, fmt.Errorf("read agent output: %w", src.err)
	}
	return build(opts, &stats, raw.finish(), d, nil), nil
}

// AnalyzeFile analyses the output file at path (what `ralph_loop --analyze
// FILE` prints): the Result, whose ResponseAnalysis is the JSON for stdout,
// and the explanation for stderr. opts.OutputFile defaults to path.
func AnalyzeFile(path string, opts Options) (Result, Explanation, error) {
	f, err := os.Open(path)
	if err != nil {
		return Result{}, nil, fmt.Errorf("analyze %s: %w", path, err)
	}
	defer f.Close()
	if opts.OutputFile == "" {
		opts.OutputFile = path
	}
	res, err := Analyze(f, opts)
	if err != nil {
		return Result{}, nil, fmt.Errorf("analyze %s: %w", path, err)
	}
	return res, res.Explain(), nil
}

// family is the output's agent CLI: opts.Family, else the family of the
// driver opts.Driver names.
func family(opts Options) wire.Family {
	if opts.Family != wire.FamilyAny {
		return opts.Family
	}
	name := strings.ToLower(strings.TrimSpace(opts.Driver))
	if name == "claude" {
		name = "claude-code"
	}
	return map[string]wire.Family{"claude-code": wire.FamilyClaude, "codex": wire.FamilyCodex,
		"cursor": wire.FamilyCursor, "opencode": wire.FamilyOpenCode, "copilot": wire.FamilyText}[name]
}

// firstByte skips a UTF-8 byte-order mark and blanks and returns the first
// other byte.
func firstByte(s *source) (byte, bool) {
	s.ensure(3)
	if bytes.HasPrefix(s.buf[s.pos:s.end], []byte("\xef\xbb\xbf")) {
		s.pos += 3
	}
	return s.skipWS()
}

// rawStats counts what the bash loop's output_length needs: characters of
// the output without NUL bytes and without trailing newlines.
type rawStats struct {
	bytes   int64
	runes   int64
	nul     int64
	trailNL int64
	carry   [utf8.UTFMax]byte
	ncarry  int
}

func (s *rawStats) Write(p []byte) (int, error) {
	n := len(p)
	s.bytes += int64(n)
	s.nul += int64(bytes.Count(p, []byte{0}))
	// trailing newlines (NUL bytes do not interrupt them: bash drops NULs)
	i := len(p) - 1
	var nl int64
	for ; i >= 0 && (p[i] == '\n' || p[i] == 0); i-- {
		if p[i] == '\n' {
			nl++
		}
	}
	if i < 0 {
		s.trailNL += nl
	} else {
		s.trailNL = nl
	}
	// characters, NUL bytes removed first, runes cut between writes carried over
	for len(p) > 0 {
		i := bytes.IndexByte(p, 0)
		if i < 0 {
			s.count(p)
			break
		}
		s.count(p[:i])
		p = p[i+1:]
	}
	return n, nil
}

// count adds the characters of p, which continues the bytes counted so far.
func (s *rawStats) count(p []byte) {
	if len(p) == 0 {
		return
	}
	if s.ncarry > 0 {
		var tmp [2 * utf8.UTFMax]byte
		c := copy(tmp[:], s.carry[:s.ncarry])
		m := copy(tmp[c:], p[:min(len(p), utf8.UTFMax)])
		b := tmp[:c+m]
		j := 0
		for j < c {
			if !utf8.FullRune(b[j:]) {
				s.ncarry = copy(s.carry[:], b[j:])
				return
			}
			_, size := utf8.DecodeRune(b[j:])
			s.runes++
			j += size
		}
		p = p[j-c:]
		s.ncarry = 0
	}
	end := len(p)
	for k := 1; k <= utf8.UTFMax-1 && k <= len(p); k++ {
		if utf8.RuneStart(p[len(p)-k]) {
			if !utf8.FullRune(p[len(p)-k:]) {
				end = len(p) - k
			}
			break
		}
	}
	s.runes += int64(runeCount(p[:end]))
	s.ncarry = copy(s.carry[:], p[end:])
}

func (s *rawStats) length() int {
	r := s.runes + int64(runeCount(s.carry[:s.ncarry]))
	return int(r - s.trailNL)
}

// runeCount is utf8.RuneCount (each invalid byte counts as one), without
// the string conversion that makes the library function allocate.
func runeCount(p []byte) int {
	n := 0
	for i := 0; i < len(p); {
		if i+8 <= len(p) && binary.LittleEndian.Uint64(p[i:])&0x8080808080808080 == 0 {
			n += 8
			i += 8
			continue
		}
		if p[i] < utf8.RuneSelf {
			n++
			i++
			continue
		}
		_, size := utf8.DecodeRune(p[i:])
		n++
		i += size
	}
	return n
}

// parsed is a JSON output reduced to what the analysis reads.
type parsed struct {
	format  Format
	jsonl   bool       // JSONL semantics: no object fields, keyword heuristics
	obj     *objFields // the result object (object, array and result-event shapes)
	text    *textFacts // the agent's text; nil means ""
	session string
	where   string // where the text came from, for the explanation

	usage      Usage
	usageKnown uint8
	durMS      wire.Value
	durAPIMS   wire.Value
	numTurns   wire.Value

	isError     bool
	errMsgs     []string
	denied      []string // structured denials, formatted
	denialCount int

	api429 bool
}

// pick decides the output's shape, the way detect_output_format and
// normalize_json_output do, and returns nil for text.
func (d *decoder) pick(hint wire.Family) *parsed {
	switch {
	case d.docs == 0:
		return nil
	case d.docs == 1 && d.invalid == 0:
		return d.pickSingle(hint)
	case d.invalid > d.docs:
		return nil // mostly not JSON: a text that happens to contain some
	}
	if p := d.pickEvents(hint); p != nil {
		return p
	}
	if d.docs == 1 {
		// One good document among a few broken lines: use it when it looks
		// like agent output.
		if d.firstArr {
			return d.arrayShape()
		}
		if d.first != nil && (d.first.line.Type.Present() || d.first.line.Result.Present()) {
			return d.objectShape()
		}
	}
	return nil
}

// pickSingle reads an output of exactly one valid document.
func (d *decoder) pickSingle(hint wire.Family) *parsed {
	switch {
	case d.firstArr:
		return d.arrayShape()
	case hint == wire.FamilyCodex && d.codex.detect:
		return d.codexShape() // a lone Codex event: still read as Codex
	case hint == wire.FamilyOpenCode && (d.oc.current || d.oc.legacy):
		return d.openCodeShape()
	}
	return d.objectShape()
}

// pickEvents picks the first event stream detected, in the bash loop's
// order (Codex, OpenCode, stream-json) unless the hint's CLI comes first.
func (d *decoder) pickEvents(hint wire.Family) *parsed {
	order := []string{"codex", "opencode", "stream"}
	switch hint {
	case wire.FamilyOpenCode:
		order = []string{"opencode", "codex", "stream"}
	case wire.FamilyClaude, wire.FamilyCursor:
		order = []string{"stream", "codex", "opencode"}
	}
	for _, o := range order {
		switch {
		case o == "codex" && d.codex.detect:
			return d.codexShape()
		case o == "opencode" && (d.oc.current || d.oc.legacy):
			return d.openCodeShape()
		case o == "stream" && d.stream.detect:
			return d.streamShape()
		}
	}
	return nil
}

func (p *parsed) useObjUsage(o *objFields) {
	set := func(v wire.Value, dst *int64, bit uint8) {
		if f, ok := v.Num(); ok {
			*dst = int64(f)
			p.usageKnown |= bit
		}
	}
	set(o.line.Usage.InputTokens, &p.usage.InputTokens, uIn)
	set(o.line.Usage.OutputTokens, &p.usage.OutputTokens, uOut)
	set(o.line.Usage.CacheReadTokens, &p.usage.CacheReadTokens, uCacheRead)
	set(o.line.Usage.CacheCreationTokens, &p.usage.CacheCreationTokens, uCacheCreate)
	if f, ok := o.line.TotalCostUSD.Num(); ok {
		p.usage.CostUSD = f
		p.usageKnown |= uCost
	}
	p.durMS, p.durAPIMS, p.numTurns = o.line.DurationMS, o.line.DurationAPIMS, o.line.NumTurns
}

func (p *parsed) useObjErrors(o *objFields) {
	p.isError = o.line.IsError.Kind == wire.True || o.line.IsError.Is("true")
	p.errMsgs = o.errMsgs
	if f, ok := o.line.APIErrorStatus.Num(); ok && f == 429 {
		p.api429 = true
	}
	if o.line.Error.Self.Is("rate_limit") {
		p.api429 = true
	}
	if o.hasDenials {
		p.denialCount = o.denialCount
		for _, e := range o.denials {
			p.denied = append(p.denied, deniedCommand(e.ToolName.Text, e.ToolName.Kind == wire.String, e.ToolInput.Command.Text, e.ToolInput.Command.Kind == wire.String))
		}
	}
}

func resultText(o *objFields) *textFacts {
	if o.line.Result.Kind == wire.String {
		return o.result
	}
	return nil
}

func (d *decoder) objectShape() *parsed {
	o := d.first
	if o == nil {
		o = &objFields{}
	}
	p := &parsed{format: FormatJSONObject, obj: o, text: resultText(o), where: "result field"}
	p.session = firstSession(o.line.SessionIDCamel, o.line.Metadata.SessionID, o.line.SessionID)
	p.useObjUsage(o)
	p.useObjErrors(o)
	return p
}

func (d *decoder) arrayShape() *parsed {
	o := d.arr.last
	if o == nil {
		o = &objFields{}
	}
	p := &parsed{format: FormatJSONArray, obj: o, text: resultText(o), where: "last result element"}
	p.session = firstSession(o.line.SessionIDCamel, o.line.SessionID, wire.Value{Kind: wire.String, Text: d.arr.initSession}, o.line.Metadata.SessionID)
	p.useObjUsage(o)
	p.useObjErrors(o)
	return p
}

func (d *decoder) streamShape() *parsed {
	a := &d.stream
	p := &parsed{format: FormatStreamJSON}
	if o := a.last; o != nil {
		p.obj, p.text, p.where = o, resultText(o), "last result event"
		p.session = firstSession(o.line.SessionID, o.line.SessionIDCamel, o.line.Metadata.SessionID, wire.Value{Kind: wire.String, Text: a.initSession})
		p.useObjUsage(o)
		p.useObjErrors(o)
		return p
	}
	// No result event (a cut stream): the assistant messages, then the
	// text deltas of an unfinished last message.
	p.jsonl = true
	p.session = firstSession(wire.Value{Kind: wire.String, Text: a.initSession})
	if len(a.deltas) > 0 {
		if a.asst == nil {
			a.asst = newTextScan(d.keep, false)
			a.asstFeed = feeder{w: a.asst, join: true}
		}
		a.asstFeed.prefix = a.asstFeed.wrote
		a.asstFeed.Write(a.deltas)
	}
	if a.asst != nil {
		p.text = a.asst.finish()
	}
	p.where = "assistant messages (no result event)"
	if a.deltaOver {
		d.truncated = true
	}
	return p
}

func (d *decoder) codexShape() *parsed {
	a := &d.codex
	p := &parsed{format: FormatCodex, jsonl: true, session: firstSession(wire.Value{Kind: wire.String, Text: a.threadID}), where: "last agent_message"}
	if a.haveLast {
		p.text = a.last
	}
	if a.usageSeen {
		// Codex counts cached input inside input_tokens; Claude does not.
		// Keep the four counts disjoint for every driver, so totals and
		// --max-tokens never count a cached token twice.
		in := a.in - a.cached
		if in < 0 {
			in = a.in
		}
		p.usage = Usage{InputTokens: in, OutputTokens: a.out, CacheReadTokens: a.cached}
		p.usageKnown = uIn | uOut | uCacheRead
	}
	p.isError = a.failed
	p.errMsgs = a.errMsgs
	p.denied = a.declined
	p.denialCount = len(a.declined)
	return p
}

func (d *decoder) openCodeShape() *parsed {
	a := &d.oc
	p := &parsed{format: FormatOpenCode, jsonl: true}
	if a.current {
		p.session = firstSession(wire.Value{Kind: wire.String, Text: a.session})
		p.where = "last step's text"
		if a.step != nil && a.stepFeed.wrote {
			p.text = a.step.finish()
		} else if a.prevStep != nil {
			p.text = a.prevStep
		}
		if a.usageSeen {
			p.usage = Usage{InputTokens: a.in, OutputTokens: a.out + a.reason, CacheReadTokens: a.cacheR, CacheCreationTokens: a.cacheW, CostUSD: a.cost}
			p.usageKnown = uIn | uOut | uCacheRead | uCacheCreate | uCost
		}
		p.errMsgs = a.errMsgs
		p.isError = len(a.errMsgs) > 0
		return p
	}
	p.session = firstSession(wire.Value{Kind: wire.String, Text: a.legacySession})
	p.where = "last assistant message"
	if a.haveLegacy {
		p.text = a.legacyLast
	}
	return p
}

// firstSession returns the first usable session id: jq's `a // b // c`,
// then the first line without CR and blanks; "", "0" and "null" are no id.
func firstSession(vs ...wire.Value) string {
	for _, x := range vs {
		if x.Kind != wire.String && x.Kind != wire.Number {
			continue
		}
		s := x.Text
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[:i]
		}
		s = strings.TrimSpace(strings.ReplaceAll(s, "\r", ""))
		if s == "" || s == "0" || s == "null" {
			continue
		}
		return s
	}
	return ""
}

func isoTimestamp(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05+00:00")
}

// build turns what was read into the Result.
func build(opts Options, stats *rawStats, raw *textFacts, d *decoder, p *parsed) Result {
	res := Result{
		Loop:         opts.Loop,
		OutputFile:   opts.OutputFile,
		OutputLength: stats.length(),
		OutputBytes:  stats.bytes,
		Status:       "UNKNOWN",
		TestsStatus:  "UNKNOWN",
		WorkType:     "UNKNOWN",
	}
	if !opts.Now.IsZero() {
		res.Timestamp = isoTimestamp(opts.Now)
	}
	if d != nil {
		res.Documents, res.InvalidLines = d.docs, d.invalid
		if d.truncated {
			res.note("a message text longer than %d bytes was cut", maxPieces)
		}
	}
	var agent *textFacts
	if p == nil {
		res.Format = FormatText
		agent = raw
		textPath(&res, raw, opts)
	} else {
		res.Format = p.format
		agent = p.text
		jsonPath(&res, p, opts)
	}
	res.OutputFormat = res.Format.OutputFormat()
	if agent == nil {
		agent = &textFacts{}
	}
	res.ResultText, res.ResultTruncated = agent.Text, agent.Truncated
	res.States = agent.States
	res.QuestionCount = agent.Questions
	res.AskingQuestions = agent.Questions > 0
	res.ErrorCount = agent.ErrorCount
	for _, l := range agent.ErrorLines {
		res.ErrorLines = append(res.ErrorLines, l.Text)
	}
	res.HasErrors = res.ErrorCount > 0 || res.IsError
	if res.ErrorCount > 0 {
		res.RepeatsErrors = repeats(res.ErrorLines, opts.PreviousErrors)
		if res.RepeatsErrors {
			res.IsStuck = true
		}
	}
	if d != nil && p != nil {
		res.UsageWindows = d.limits.resolved(opts.Now)
	}
	detectLimit(&res, p, raw, opts)
	if res.DeniedCommands == nil {
		res.DeniedCommands = []string{}
	}
	res.SetFilesModified(opts.FilesModified)
	if opts.FixPlanDelta != nil {
		res.ApplyFixPlanDelta(*opts.FixPlanDelta)
	}
	return res
}

// jsonVerdict is what the JSON branch decides, step by step.
type jsonVerdict struct {
	summary    *textFacts // the text the summary, denial and keyword rules read
	hasResult  bool
	status     string
	exit       bool
	explicit   bool // an exit signal was given (JSON key or status block)
	tasks      int
	workType   string
	files      int
	errorCount int
	confidence int
	block      *StatusBlock
}

// jsonPath is parse_json_response plus analyze_response's JSON branch.
func jsonPath(res *Result, p *parsed, opts Options) {
	v := objectVerdict(res, p)
	res.Status = v.status
	res.WorkType = v.workType
	res.ReportedFilesModified = v.files
	res.jsonFiles = v.files
	blockVerdict(res, p.text, &v)
	res.TasksCompletedThisLoop = v.tasks
	jsonDenials(res, p, v.summary)
	kw := keywordVerdict(res, p, &v)

	if v.explicit {
		res.ExplicitExitSignal = true
	} else {
		switch {
		case v.exit:
			res.why = append(res.why, "the JSON exit_signal is true")
		case v.status == "COMPLETE":
			v.exit = true
			res.why = append(res.why, "the JSON status is COMPLETE")
		case kw:
			v.exit = true
		}
	}
	res.ExitSignal = v.exit
	res.HasCompletionSignal = v.exit
	res.IsTestOnly = v.workType == "TEST_ONLY"
	res.IsStuck = v.errorCount > 5

	res.FormatConfidence = 80
	if v.hasResult {
		res.FormatConfidence = 100
	}
	res.baseScore = v.confidence
	if v.exit {
		res.baseScore = 100
	}
	res.ConfidenceScore = res.baseScore
	if v.summary != nil {
		res.WorkSummary = v.summary.Text
	}
	jsonFacts(res, p)
}

// objectVerdict reads the result object's own fields (absent in the JSONL
// shapes).
func objectVerdict(res *Result, p *parsed) jsonVerdict {
	v := jsonVerdict{summary: p.text, hasResult: true, status: "UNKNOWN", workType: "UNKNOWN"}
	o := p.obj
	if o == nil {
		return v
	}
	l := &o.line
	v.hasResult = l.Result.Present()
	if k := l.Result.Kind; (k == wire.None || k == wire.Null || k == wire.False) && l.Summary.Kind == wire.String {
		v.summary = o.summary
	}
	v.status = l.Status.Alt("UNKNOWN")
	if c := l.Metadata.CompletionStatus.Alt(""); c == "complete" || c == "COMPLETE" {
		v.status = "COMPLETE"
	}
	v.exit = l.ExitSignal.Alt("false") == "true"
	v.explicit = l.ExitSignal.Present()
	if v.explicit {
		res.why = append(res.why, fmt.Sprintf("the JSON exit_signal key says %t", v.exit))
	}
	if n, ok := atoiSigned(l.TasksCompleted.Alt("0")); ok {
		v.tasks = n
	}
	v.workType = l.WorkType.Alt("UNKNOWN")
	v.files = jqInt(l.Metadata.FilesChanged.Or(l.FilesModified).Alt("0"))
	ec := l.ErrorCount.Alt("0")
	v.errorCount = jqInt(ec)
	if l.Metadata.HasErrors.Alt("false") == "true" && ec == "0" {
		v.errorCount = 1
	}
	v.confidence = jqInt(l.Confidence.Alt("0"))
	return v
}

// blockVerdict applies the status block inside the agent's text.
func blockVerdict(res *Result, text *textFacts, v *jsonVerdict) {
	if text == nil {
		return
	}
	if text.Bytes == 0 || text.Block == nil {
		res.BlockCount = text.Blocks
		return
	}
	block := text.Block
	v.block = block
	res.Block, res.BlockCount = block, text.Blocks
	v.tasks = block.TasksCompleted
	res.TestsStatus = block.TestsStatus
	if block.FilesModified != nil {
		// The agent's own count, for reporting; the exit and progress
		// decisions keep the JSON figure, as the bash loop does.
		res.ReportedFilesModified = *block.FilesModified
	}
	switch {
	case block.ExitSignalFound:
		v.explicit, v.exit = true, block.ExitSignal
		res.why = append(res.why, fmt.Sprintf("EXIT_SIGNAL: %t in the status block", v.exit))
	case block.Status == "COMPLETE" && !v.explicit:
		v.exit = true
		res.why = append(res.why, "STATUS: COMPLETE in the status block (no EXIT_SIGNAL)")
	}
}

// jsonDenials: the structured permission denials first, else the refusal
// heuristic on the summary text.
func jsonDenials(res *Result, p *parsed, summary *textFacts) {
	if p.denialCount > 0 {
		res.HasPermissionDenials = true
		res.PermissionDenialCount = p.denialCount
		res.DeniedCommands = p.denied
		res.denialWhy = "the output's permission_denials"
	} else if summary != nil && summary.Denial {
		res.HasPermissionDenials = true
		res.PermissionDenialCount = 1
		res.DeniedCommands = []string{"permission_denied"}
		res.denialWhy = "refusal in the first paragraph: " + summary.DenialLine
	}
}

// keywordVerdict applies the keyword heuristics: JSONL shapes only, and
// only without an exit signal or a status block. It reports whether one
// matched.
func keywordVerdict(res *Result, p *parsed, v *jsonVerdict) bool {
	summary := v.summary
	if !p.jsonl || v.explicit || v.block != nil || summary == nil || summary.Bytes == 0 {
		return false
	}
	if k := summary.firstKeyword(); k != "" {
		res.CompletionKeyword = k
		res.why = append(res.why, fmt.Sprintf("completion keyword %q (no status block)", k))
		return true
	}
	if w := summary.firstNoWork(); w != "" {
		res.NoWorkPattern = w
		res.why = append(res.why, fmt.Sprintf("no-work phrase %q (no status block)", w))
		return true
	}
	return false
}

// jsonFacts copies what the output reported about the call itself.
func jsonFacts(res *Result, p *parsed) {
	res.SessionID = p.session
	if p.usageKnown != 0 {
		u := p.usage
		res.Usage = &u
		res.usageKnown = p.usageKnown
	}
	res.DurationMS, res.DurationAPIMS, res.NumTurns = jvIntPtr(p.durMS), jvIntPtr(p.durAPIMS), jvIntPtr(p.numTurns)
	res.IsError = p.isError
	res.ErrorMessages = p.errMsgs
	if p.where != "" {
		res.note("agent text: %s", p.where)
	}
}

// textPath is analyze_response's plain-text branch.
func textPath(res *Result, f *textFacts, opts Options) {
	res.textPath = true
	var completion, exit bool
	var score int
	if b := f.Block; b != nil {
		completion, exit, score = textBlock(res, f, b)
	} else {
		completion, exit, score = textHeuristics(res, f, opts)
	}
	res.HasCompletionSignal = completion
	res.ExitSignal = exit
	res.baseScore = score
	res.ConfidenceScore = score
	if res.WorkSummary == "" {
		if f.HasSummary {
			res.WorkSummary = f.Summary
		} else {
			res.WorkSummary = "Output analyzed, no explicit summary found"
		}
	}
	switch {
	case textHasDenial(res.WorkSummary):
		res.denialWhy = "refusal in the summary line: " + res.WorkSummary
	case f.Denial:
		res.denialWhy = "refusal in the first paragraph: " + f.DenialLine
	}
	if res.denialWhy != "" {
		res.HasPermissionDenials = true
		res.PermissionDenialCount = 1
		res.DeniedCommands = []string{"permission_denied"}
	}
}

// textBlock decides a plain-text output by its status block.
func textBlock(res *Result, f *textFacts, b *StatusBlock) (completion, exit bool, score int) {
	res.Block, res.BlockCount = b, f.Blocks
	res.FormatConfidence = 70
	res.TasksCompletedThisLoop = b.TasksCompleted
	res.TestsStatus = b.TestsStatus
	if b.FilesModified != nil {
		res.ReportedFilesModified = *b.FilesModified // for reporting only
	}
	switch {
	case b.ExitSignalFound && b.ExitSignal:
		res.ExplicitExitSignal = true
		res.why = append(res.why, "EXIT_SIGNAL: true in the status block")
		return true, true, 100
	case b.ExitSignalFound:
		res.ExplicitExitSignal = true
		res.why = append(res.why, "EXIT_SIGNAL: false in the status block")
		return false, false, 80
	case b.Status == "COMPLETE":
		res.why = append(res.why, "STATUS: COMPLETE in the status block (no EXIT_SIGNAL)")
		return true, true, 100
	}
	res.why = append(res.why, "the status block has no EXIT_SIGNAL and no STATUS: COMPLETE")
	return false, false, 0
}

// textHeuristics decides a plain-text output without a status block:
// keywords, test-only lines, error lines, no-work phrases and a shorter
// output than the previous loop's.
func textHeuristics(res *Result, f *textFacts, opts Options) (completion, exit bool, score int) {
	res.FormatConfidence = 30
	res.gitBonus = true
	if k := f.firstKeyword(); k != "" {
		completion = true
		score += 10
		res.CompletionKeyword = k
		res.why = append(res.why, fmt.Sprintf("completion keyword %q (no status block)", k))
	}
	if f.TestLines > 0 && f.ImplLines == 0 {
		res.IsTestOnly = true
		res.WorkSummary = "Test execution only, no implementation"
	}
	if f.ErrorCount > 5 {
		res.IsStuck = true
	}
	if w := f.firstNoWork(); w != "" {
		completion = true
		score += 15
		res.NoWorkPattern = w
		res.WorkSummary = "No work remaining"
		res.why = append(res.why, fmt.Sprintf("no-work phrase %q (no status block)", w))
	}
	if prev := opts.PreviousOutputLength; prev > 0 && res.OutputLength*100/prev < 50 {
		score += 10
		res.why = append(res.why, fmt.Sprintf("output shorter than half the previous one (%d < %d/2): +10 confidence", res.OutputLength, prev))
	}
	exit = score >= 40 || completion
	if !exit {
		res.why = append(res.why, "no status block and no completion keyword")
	}
	return completion, exit, score
}

// jqInt is bash's $((value + 0)) on what jq printed: integers (or the
// integer part of a number), 0 otherwise.
func jqInt(s string) int {
	s = strings.TrimSpace(s)
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && f > -1e15 && f < 1e15 {
		return int(f)
	}
	return 0
}

func jvIntPtr(v wire.Value) *int64 {
	f, ok := v.Num()
	if !ok {
		return nil
	}
	n := int64(f)
	return &n
}

// repeats is detect_stuck_loop's rule on error lines kept from earlier
// loops: every current error line appears in every one of (up to) the
// three most recent previous loops.
func repeats(current []string, previous [][]string) bool {
	if len(previous) == 0 || len(current) == 0 {
		return false
	}
	if len(previous) > 3 {
		previous = previous[:3]
	}
	for _, prev := range previous {
		for _, line := range current {
			found := false
			for _, p := range prev {
				if strings.Contains(p, line) {
					found = true
					break
				}
			}
			if !found {
				return false
			}
		}
	}
	return true
}

func (r *Result) note(format string, args ...any) {
	r.why = append(r.why, "note: "+fmt.Sprintf(format, args...))
}
