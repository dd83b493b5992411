package analysis

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math/rand"
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
// encoding/json (jsonOracle). FuzzStatusBlock compares the streaming text
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
		res := checkAnalyze(t, data, Options{Driver: driver})
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
		res := checkAnalyze(t, data, Options{Driver: "copilot", ExitCode: 1})
		if res.Format != FormatText {
			t.Fatalf("copilot output read as %s", res.Format)
		}
		want := naiveFacts(string(data))
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

func FuzzStatusBlock(f *testing.F) {
	for _, s := range fragments {
		f.Add(s)
	}
	f.Add("x\n---RALPH_STATUS---\nSTATUS: COMPLETE\nEXIT_SIGNAL: false\n---END_RALPH_STATUS---\n---RALPH_STATUS---EXIT_SIGNAL: true")
	f.Add("---RALPH_STATUS---END_RALPH_STATUS---")
	f.Add("<!-- ralph:state idle -->")
	seedText := func(pat string) {
		files, _ := filepath.Glob(filepath.Join("testdata", "*", pat))
		for _, file := range files {
			b, _ := os.ReadFile(file)
			f.Add(string(b))
		}
	}
	seedText("*.txt")
	f.Fuzz(func(t *testing.T, text string) {
		want := naiveFacts(text)
		compareFacts(t, text, scanString(text, 0), want)
		compareFacts(t, text, scanPieces(text, rand.New(rand.NewSource(int64(len(text))))), want)
	})
}

// oracleResult is what jsonOracle expects for plain, valid JSON.
type oracleResult struct {
	format       Format
	text         string
	session      string
	checkSession bool
}

// jsonOracle decodes a valid JSON output with encoding/json and applies the
// selection rules (doc.go) the slow way. ok is false when the input is not
// plain valid JSON (invalid lines, duplicate keys, deep nesting, values the
// rules leave open) or is text.
func jsonOracle(data []byte, driver string) (oracleResult, bool) {
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), " \t\r\n")
	if len(trimmed) == 0 || (trimmed[0] != '{' && trimmed[0] != '[') || driver == "copilot" {
		return oracleResult{}, false
	}
	if !plainJSON(trimmed) {
		return oracleResult{}, false
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	var docs []any
	for {
		var v any
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return oracleResult{}, false
		}
		switch v.(type) {
		case map[string]any, []any:
		default:
			return oracleResult{}, false
		}
		docs = append(docs, v)
	}
	if len(docs) == 1 {
		if arr, ok := docs[0].([]any); ok {
			var last map[string]any
			init := ""
			for _, e := range arr {
				m, _ := e.(map[string]any)
				if m == nil {
					continue
				}
				if m["type"] == "result" {
					last = m
				}
				if init == "" && m["type"] == "system" && m["subtype"] == "init" {
					init = oSession(oStr(m["session_id"]))
				}
			}
			if last == nil {
				return oracleResult{format: FormatJSONArray, checkSession: true, session: oSession(init)}, true
			}
			return oracleResult{FormatJSONArray, oStr(last["result"]),
				oSession(oStr(last["sessionId"]), oStr(last["session_id"]), init, oStr(oGet(last, "metadata", "session_id"))), true}, true
		}
	}
	var evs []map[string]any
	for _, d := range docs {
		m, ok := d.(map[string]any)
		if !ok {
			return oracleResult{}, false
		}
		evs = append(evs, m)
	}
	codex, legacy, current, stream := false, false, false, false
	for _, m := range evs {
		typ, _ := m["type"].(string)
		item, _ := m["item"].(map[string]any)
		if typ == "thread.started" || (typ == "item.completed" && item != nil && item["type"] != nil) {
			codex = true
		}
		msg, _ := m["message"].(map[string]any)
		if typ == "session.created" || typ == "session.updated" ||
			((typ == "message.updated" || typ == "message.completed") && msg != nil && msg["role"] != nil) {
			legacy = true
		}
		if _, ok := m["sessionID"].(string); ok {
			switch typ {
			case "text", "tool_use", "step_start", "step_finish", "reasoning", "error":
				current = true
			}
		}
		switch typ {
		case "system", "user", "assistant", "tool_call", "result":
			stream = true
		}
	}
	if len(evs) == 1 {
		switch h := driverHint(driver); {
		case h == "codex" && codex:
			return oracleCodex(evs)
		case h == "opencode" && (legacy || current):
			return oracleOpenCode(evs, current)
		}
		m := evs[0]
		return oracleResult{FormatJSONObject, oStr(m["result"]),
			oSession(oStr(m["sessionId"]), oStr(oGet(m, "metadata", "session_id")), oStr(m["session_id"])), true}, true
	}
	order := []string{"codex", "opencode", "stream"}
	switch driverHint(driver) {
	case "opencode":
		order = []string{"opencode", "codex", "stream"}
	case "claude-code", "cursor":
		order = []string{"stream", "codex", "opencode"}
	}
	for _, o := range order {
		switch {
		case o == "codex" && codex:
			return oracleCodex(evs)
		case o == "opencode" && (legacy || current):
			return oracleOpenCode(evs, current)
		case o == "stream" && stream:
			return oracleStream(evs)
		}
	}
	return oracleResult{}, false
}

func oracleCodex(evs []map[string]any) (oracleResult, bool) {
	r := oracleResult{format: FormatCodex, checkSession: true}
	for _, m := range evs {
		if m["type"] == "thread.started" && r.session == "" {
			r.session = oSession(oStr(m["thread_id"]))
		}
		item, _ := m["item"].(map[string]any)
		if m["type"] != "item.completed" || item == nil || item["type"] != "agent_message" {
			continue
		}
		switch t := item["text"].(type) {
		case string:
			r.text = t
			continue
		case nil, bool:
			if t == true {
				return oracleResult{}, false
			}
		default:
			return oracleResult{}, false
		}
		r.text = oJoin(item["content"], "output_text")
	}
	return r, true
}

func oracleOpenCode(evs []map[string]any, current bool) (oracleResult, bool) {
	r := oracleResult{format: FormatOpenCode}
	if !current {
		for _, m := range evs {
			msg, _ := m["message"].(map[string]any)
			if (m["type"] == "message.updated" || m["type"] == "message.completed") && msg != nil && msg["role"] == "assistant" {
				r.text = oJoin(msg["parts"], "text")
			}
		}
		return r, true
	}
	var step, prev []string
	wrote := false
	for _, m := range evs {
		if _, ok := m["sessionID"].(string); !ok {
			continue
		}
		switch m["type"] {
		case "step_start":
			if wrote {
				prev, step, wrote = step, nil, false
			} else {
				step = nil
			}
		case "text":
			part, _ := m["part"].(map[string]any)
			if part != nil && part["type"] == "text" {
				s, _ := part["text"].(string)
				step = append(step, s)
				if strings.Join(step, "\n") != "" {
					wrote = true
				}
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

func oracleStream(evs []map[string]any) (oracleResult, bool) {
	var last map[string]any
	init := ""
	for _, m := range evs {
		if m["type"] == "result" {
			last = m
		}
		if init == "" && m["type"] == "system" && m["subtype"] == "init" {
			init = oSession(oStr(m["session_id"]))
		}
	}
	if last == nil {
		return oracleResult{}, false // joined assistant text: covered by the fixtures
	}
	return oracleResult{FormatStreamJSON, oStr(last["result"]),
		oSession(oStr(last["session_id"]), oStr(last["sessionId"]), oStr(oGet(last, "metadata", "session_id")), init), true}, true
}

func oGet(m map[string]any, keys ...string) any {
	var v any = m
	for _, k := range keys {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[k]
	}
	return v
}

// oStr is a string value with invalid UTF-8 already replaced (as
// encoding/json does); other values give "".
func oStr(v any) string {
	switch s := v.(type) {
	case string:
		return s
	case json.Number:
		return string(s)
	}
	return ""
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

// oJoin joins the text of the entries of type typ with "\n".
func oJoin(v any, typ string) string {
	arr, _ := v.([]any)
	var parts []string
	for _, e := range arr {
		m, _ := e.(map[string]any)
		if m == nil || m["type"] != typ {
			continue
		}
		s, _ := m["text"].(string)
		parts = append(parts, s)
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
