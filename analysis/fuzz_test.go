package analysis_test

import (
	. "github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/drivers"

	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// Fuzz targets. Each decoder is checked three ways: it never panics; the
// result does not depend on how the input is cut (a seekable reader, one
// byte at a time, odd pieces); and, where the input is plain valid JSON,
// the text and session it finds match a slow decoder built on
// encoding/json (jsonOracle), independent of the drivers' decoders.
// FuzzStatusBlock compares the streaming text
// scanner with naiveFacts.

func seedFuzz(f *testing.F, pats ...string) {
	for _, dir := range []string{"agent-output", "extra"} {
		for _, pat := range pats {
			files, _ := filepath.Glob(filepath.Join("testdata", dir, pat))
			for _, file := range files {
				b, err := os.ReadFile(file)
				if err != nil {
					f.Fatal(err)
				}
				f.Add(b)
			}
		}
	}
}

// view is what the reading paths must agree on.
type view struct {
	File                 string
	Format               Format
	Docs, Invalid        int
	Session, Text        string
	States, Errors       []string
	Limited              bool
	Usage                *Usage
	Block                *StatusBlock
	Blocks               int
	Denied               []string
	Questions, ErrorCnt  int
	IsError, HasErrors   bool
	OutputLen            int
	OutputBytes          int64
	Truncated, Repeating bool
}

func viewOf(t *testing.T, r Result) view {
	b, err := r.ResponseAnalysis().Marshal()
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	if !json.Valid(b) {
		t.Fatalf("invalid .response_analysis JSON:\n%s", b)
	}
	return view{string(b), r.Format, r.Documents, r.InvalidLines, r.SessionID, r.ResultText, r.States, r.ErrorLines,
		r.UsageLimited, r.Usage, r.Block, r.BlockCount, r.DeniedCommands, r.QuestionCount, r.ErrorCount,
		r.IsError, r.HasErrors, r.OutputLength, r.OutputBytes, r.ResultTruncated, r.RepeatsErrors}
}

// checkAnalyze runs every reading path and the invariants; it returns the
// seekable path's result.
func checkAnalyze(t *testing.T, data []byte, opts Options) Result {
	t.Helper()
	first, err := Analyze(bytes.NewReader(data), opts)
	if err != nil {
		t.Fatal(err)
	}
	want := viewOf(t, first)
	readers := map[string]io.Reader{
		"one-byte": iotest.OneByteReader(bytes.NewReader(data)),
		"half":     iotest.HalfReader(bytes.NewReader(data)),
		"data-err": iotest.DataErrReader(bytes.NewReader(data)),
	}
	for name, r := range readers {
		res, err := Analyze(r, opts)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, viewOf(t, res)); diff != "" {
			t.Fatalf("%s reader differs (-seekable +%s):\n%s", name, name, diff)
		}
	}
	if s := first.SessionID; s != strings.TrimSpace(s) || s == "0" || s == "null" || strings.ContainsAny(s, "\r\n") {
		t.Errorf("bad session id %q", s)
	}
	switch first.FormatConfidence {
	case 30, 70, 80, 100:
	default:
		t.Errorf("format_confidence %d", first.FormatConfidence)
	}
	if first.OutputLength < 0 || first.OutputLength > len(data) {
		t.Errorf("output length %d of %d bytes", first.OutputLength, len(data))
	}
	if first.HasCompletionSignal != first.ExitSignal {
		t.Errorf("completion %v != exit %v", first.HasCompletionSignal, first.ExitSignal)
	}
	if first.Block != nil && first.Block.ExitSignalFound && first.ExitSignal != first.Block.ExitSignal {
		t.Errorf("explicit EXIT_SIGNAL %v ignored", first.Block.ExitSignal)
	}
	return first
}

func fuzzDecoder(f *testing.F, driver string, want Format, pats ...string) {
	seedFuzz(f, pats...)
	f.Fuzz(func(t *testing.T, data []byte) {
		res := checkAnalyze(t, data, Options{Formats: drivers.Formats(driver)})
		o, ok := jsonOracle(data, driver)
		if !ok || (want != "" && o.format != want) {
			return
		}
		if res.Format != o.format {
			t.Fatalf("format %s, oracle %s", res.Format, o.format)
		}
		if got := string([]rune(res.ResultText)); got != o.text {
			t.Fatalf("text %q, oracle %q", got, o.text)
		}
		if o.checkSession && res.SessionID != o.session {
			t.Fatalf("session %q, oracle %q", res.SessionID, o.session)
		}
	})
}

func FuzzDecodeClaudeJSON(f *testing.F) {
	f.Add([]byte(`{"result":"a\u00e9\ud83d\ude00\ud800x","sessionId":"s"}`))
	f.Add([]byte(`[{"type":"system","subtype":"init","session_id":"i"},{"type":"result","result":"r"}]`))
	fuzzDecoder(f, "claude-code", "", "cli_*.json", "permission_denials.json", "flat_*.json", "claude_result*.json", "leading*.json")
}

func FuzzDecodeClaudeStream(f *testing.F) {
	fuzzDecoder(f, "claude-code", FormatStreamJSON, "claude_stream*.jsonl")
}

func FuzzDecodeCodex(f *testing.F) {
	fuzzDecoder(f, "codex", FormatCodex, "codex_*.jsonl")
}

func FuzzDecodeCursor(f *testing.F) {
	fuzzDecoder(f, "cursor", "", "cursor_*")
}

func FuzzDecodeOpenCode(f *testing.F) {
	fuzzDecoder(f, "opencode", FormatOpenCode, "opencode_*.jsonl")
}

func FuzzDecodeText(f *testing.F) {
	seedFuzz(f, "text_*.txt", "*.txt")
	f.Fuzz(func(t *testing.T, data []byte) {
		res := checkAnalyze(t, data, Options{Formats: drivers.Formats("copilot"), ExitCode: 1})
		if res.Format != FormatText {
			t.Fatalf("copilot output read as %s", res.Format)
		}
		want := NaiveFacts(string(data))
		if res.ErrorCount != want.ErrorCount || res.BlockCount != want.Blocks || !cmp.Equal(res.States, want.States, cmpEmpty) {
			t.Fatalf("text facts differ from the naive reading: errors %d/%d blocks %d/%d states %q/%q",
				res.ErrorCount, want.ErrorCount, res.BlockCount, want.Blocks, res.States, want.States)
		}
		if res.OutputLength != naiveLength(data) {
			t.Fatalf("output length %d, naive %d", res.OutputLength, naiveLength(data))
		}
	})
}

var cmpEmpty = cmp.Comparer(func(a, b []string) bool { return strings.Join(a, "\x00") == strings.Join(b, "\x00") })

func naiveLength(data []byte) int {
	s := string(bytes.ReplaceAll(data, []byte{0}, nil))
	s = strings.TrimRight(s, "\n")
	return utf8.RuneCountInString(s)
}

// oracleResult is what jsonOracle expects for plain, valid JSON.
type oracleResult struct {
	format       Format
	text         string
	session      string
	checkSession bool
}

// jsonOracle decodes a valid JSON output whole, document by document, into
// the records of each format and applies the selection rules (doc.go) the
// slow way. ok is false when the input is not plain valid JSON (invalid
// lines, duplicate keys, deep nesting, values the rules leave open) or is
// text.
func jsonOracle(data []byte, driver string) (oracleResult, bool) {
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), " \t\r\n")
	if len(trimmed) == 0 || (trimmed[0] != '{' && trimmed[0] != '[') || driver == "copilot" || !plainJSON(trimmed) {
		return oracleResult{}, false
	}
	docs, ok := oracleDocs(trimmed)
	if !ok {
		return oracleResult{}, false
	}
	if len(docs) == 1 && docs[0][0] == '[' {
		return oracleArray(docs[0])
	}
	evs := make([]oLine, len(docs))
	for i, d := range docs {
		if d[0] != '{' || evs[i].decode(d) != nil {
			return oracleResult{}, false
		}
	}
	return oraclePick(evs, driver)
}

// oraclePick applies the shape rules to a list of events.
func oraclePick(evs []oLine, driver string) (oracleResult, bool) {
	shapes := map[string]bool{}
	for i := range evs {
		oracleDetect(evs[i], shapes)
	}
	opencode := shapes["legacy"] || shapes["current"]
	if len(evs) == 1 {
		switch {
		case driver == "codex" && shapes["codex"]:
			return oracleCodex(evs)
		case driver == "opencode" && opencode:
			return oracleOpenCode(evs, shapes["current"])
		}
		m := evs[0]
		return oracleResult{FormatJSONObject, oStr(m.get("result")),
			oSession(oStr(m.get("sessionId")), oStr(m.get("metadata", "session_id")), oStr(m.get("session_id"))), true}, true
	}
	order := map[string][]string{
		"opencode":    {"opencode", "codex", "stream"},
		"claude-code": {"stream", "codex", "opencode"},
		"cursor":      {"stream", "codex", "opencode"},
	}[driver]
	if order == nil {
		order = []string{"codex", "opencode", "stream"}
	}
	for _, o := range order {
		switch {
		case o == "codex" && shapes["codex"]:
			return oracleCodex(evs)
		case o == "opencode" && opencode:
			return oracleOpenCode(evs, shapes["current"])
		case o == "stream" && shapes["stream"]:
			return oracleStream(evs)
		}
	}
	return oracleResult{}, false
}

// oracleDocs splits data into its JSON documents, each an object or an array.
func oracleDocs(data []byte) ([]json.RawMessage, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var docs []json.RawMessage
	for {
		var v json.RawMessage
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			return docs, true
		}
		if err != nil || (v[0] != '{' && v[0] != '[') {
			return nil, false
		}
		docs = append(docs, v)
	}
}

// oracleArray reads Claude's message array.
func oracleArray(doc []byte) (oracleResult, bool) {
	var elems []json.RawMessage
	if json.Unmarshal(doc, &elems) != nil {
		return oracleResult{}, false
	}
	var last oLine
	init := ""
	for _, e := range elems {
		var m oLine
		if e[0] != '{' || m.decode(e) != nil {
			continue
		}
		if m.is("result", "type") {
			last = m
		}
		if init == "" && m.is("system", "type") && m.is("init", "subtype") {
			init = oSession(oStr(m.get("session_id")))
		}
	}
	if last == nil {
		return oracleResult{format: FormatJSONArray, checkSession: true, session: oSession(init)}, true
	}
	return oracleResult{FormatJSONArray, oStr(last.get("result")),
		oSession(oStr(last.get("sessionId")), oStr(last.get("session_id")), init, oStr(last.get("metadata", "session_id"))), true}, true
}

// oracleDetect notes which shapes an event belongs to.
func oracleDetect(m oLine, shapes map[string]bool) {
	typ := oText(m.get("type"))
	if typ == "thread.started" || (typ == "item.completed" && m.get("item", "type") != nil) {
		shapes["codex"] = true
	}
	if _, obj := m.get("message").(map[string]any); typ == "session.created" || typ == "session.updated" ||
		((typ == "message.updated" || typ == "message.completed") && obj && m.get("message", "role") != nil) {
		shapes["legacy"] = true
	}
	if _, ok := m.get("sessionID").(string); ok {
		switch typ {
		case "text", "tool_use", "step_start", "step_finish", "reasoning", "error":
			shapes["current"] = true
		}
	}
	switch typ {
	case "system", "user", "assistant", "tool_call", "result":
		shapes["stream"] = true
	}
}

func oracleCodex(evs []oLine) (oracleResult, bool) {
	r := oracleResult{format: FormatCodex, checkSession: true}
	for _, m := range evs {
		if m.is("thread.started", "type") && r.session == "" {
			r.session = oSession(oStr(m.get("thread_id")))
		}
		if !m.is("item.completed", "type") || !m.is("agent_message", "item", "type") {
			continue
		}
		switch text := m.get("item", "text"); text {
		case nil, false: // absent too
		default:
			s, ok := text.(string)
			if !ok {
				return oracleResult{}, false
			}
			r.text = s
			continue
		}
		r.text = oJoin(m.get("item", "content"), "output_text")
	}
	return r, true
}

func oracleOpenCode(evs []oLine, current bool) (oracleResult, bool) {
	r := oracleResult{format: FormatOpenCode}
	if !current {
		for _, m := range evs {
			if (m.is("message.updated", "type") || m.is("message.completed", "type")) && m.is("assistant", "message", "role") {
				r.text = oJoin(m.get("message", "parts"), "text")
			}
		}
		return r, true
	}
	var step, prev []string
	wrote := false
	for _, m := range evs {
		if _, ok := m.get("sessionID").(string); !ok {
			continue
		}
		switch {
		case m.is("step_start", "type"):
			if wrote {
				prev, step, wrote = step, nil, false
			} else {
				step = nil
			}
		case m.is("text", "type") && m.is("text", "part", "type"):
			step = append(step, oText(m.get("part", "text")))
			if strings.Join(step, "\n") != "" {
				wrote = true
			}
		}
	}
	if wrote {
		r.text = strings.Join(step, "\n")
	} else {
		r.text = strings.Join(prev, "\n")
	}
	return r, true
}

func oracleStream(evs []oLine) (oracleResult, bool) {
	var last oLine
	init := ""
	for _, m := range evs {
		if m.is("result", "type") {
			last = m
		}
		if init == "" && m.is("system", "type") && m.is("init", "subtype") {
			init = oSession(oStr(m.get("session_id")))
		}
	}
	if last == nil {
		return oracleResult{}, false // joined assistant text: covered by the fixtures
	}
	return oracleResult{FormatStreamJSON, oStr(last.get("result")),
		oSession(oStr(last.get("session_id")), oStr(last.get("sessionId")), oStr(last.get("metadata", "session_id")), init), true}, true
}

// oStr is a string's or a number's text (as written); other values give "".
func oStr(v any) string {
	if n, ok := v.(json.Number); ok {
		return string(n)
	}
	return oText(v)
}

// oText is a string's text; other values give "".
func oText(v any) string {
	s, _ := v.(string)
	return s
}

func oSession(vs ...string) string {
	for _, s := range vs {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[:i]
		}
		s = strings.TrimSpace(strings.ReplaceAll(s, "\r", ""))
		if s != "" && s != "0" && s != "null" {
			return s
		}
	}
	return ""
}

// oJoin joins the text of the entries of type typ of a list with "\n"
// (anything but a list has none).
func oJoin(list any, typ string) string {
	entries, _ := list.([]any)
	var parts []string
	for _, e := range entries {
		if m, ok := e.(map[string]any); ok && oLine(m).is(typ, "type") {
			parts = append(parts, oText(m["text"]))
		}
	}
	return strings.Join(parts, "\n")
}

// plainJSON: valid JSON values without duplicate keys, nesting within our
// limit, and no value of a key the rules read as text that is not a string
// where jq would print it (kept simple: such inputs are skipped).
func plainJSON(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		obj  bool
		keys map[string]bool
		key  bool // next token in an object is a key
	}
	var stack []frame
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return len(stack) == 0
		}
		if err != nil {
			return false
		}
		if len(stack) > 0 && stack[len(stack)-1].obj && stack[len(stack)-1].key {
			if k, ok := tok.(string); ok {
				top := &stack[len(stack)-1]
				if top.keys[k] {
					return false
				}
				top.keys[k] = true
				top.key = false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, frame{obj: true, keys: map[string]bool{}, key: true})
			if len(stack) > 400 {
				return false
			}
			continue
		case json.Delim('['):
			stack = append(stack, frame{})
			if len(stack) > 400 {
				return false
			}
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 && stack[len(stack)-1].obj {
			stack[len(stack)-1].key = true
		}
	}
}

// oLine is one event, an object decoded by encoding/json (numbers as
// written): what every format reads of it.
type oLine map[string]any

func (l *oLine) decode(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode((*map[string]any)(l))
}

// get is the value at the path of keys, nil when absent (or null): a key
// of anything but an object is absent, as jq's `.a.b // empty` reads it.
func (l oLine) get(path ...string) any {
	var v any = map[string]any(l)
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// is reports whether the value at path is the string s.
func (l oLine) is(s string, path ...string) bool {
	v, ok := l.get(path...).(string)
	return ok && v == s
}
