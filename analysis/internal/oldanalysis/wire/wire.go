// Package wire describes, once, what the agent CLIs print: Claude Code
// (--output-format json and stream-json), Codex (exec --json), Cursor
// (json and stream-json), OpenCode (run --format json) and Copilot (plain
// text). A Line is one JSON document of any of them: a result object, an
// element of Claude's message array, or one event of a JSON-lines stream.
//
// Two readers use these records. The live renderer (drivers) decodes each
// streamed line into a Line with Decode. The analyser (analysis) never holds
// a whole line: its streaming reader walks the same struct tags to know
// which paths to keep, and the `analysis` tag on a field says how it reads
// that field when the value can be long or needs more than a plain value:
//
//	text     a long string, read piece by piece into the text scanner
//	message  an error message: its first bytes are kept (strings only)
//	entry=T  an object (or each element of an array) whose "text" pieces
//	         are joined into the agent's text of kind T
//	piece    the "text" of such an entry
//	denials  the permission_denials list
//	-        not read by the analyser (only the live renderer shows it)
//
// Every type here accepts any JSON value: a field of an unexpected type
// reads as its Kind and never fails the line, as jq's `.a.b // empty` does
// in the bash loop.
package wire

import (
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Family is the agent CLI whose output a driver produces. The analyser
// tries that CLI's shapes first; FamilyText reads the output as plain text
// whatever it looks like, and FamilyAny detects the shape.
type Family string

const (
	FamilyAny      Family = ""         // any CLI (the command driver): detect
	FamilyClaude   Family = "claude"   // Claude Code: a result object, a message array or stream-json
	FamilyCodex    Family = "codex"    // Codex exec --json events
	FamilyCursor   Family = "cursor"   // Cursor agent: Claude's shapes
	FamilyOpenCode Family = "opencode" // OpenCode run --format json events
	FamilyText     Family = "text"     // plain text only (Copilot)
)

// Line is one JSON document of an agent's output. Which fields a CLI
// sends is said field by field; the analyser decides the output's shape
// from the types and fields it saw (see the analysis package).
type Line struct {
	Type    Value `json:"type"`    // every event shape; "result" for Claude's result object
	Subtype Value `json:"subtype"` // Claude: "init" of the system event, "success"...

	// Claude and Cursor result object (and the flat format some wrappers print).
	Result         Value      `json:"result" analysis:"text"`
	Summary        Value      `json:"summary" analysis:"text"`
	SessionIDCamel Value      `json:"sessionId"`
	SessionID      Value      `json:"session_id"` // also Claude's system init event
	Metadata       Metadata   `json:"metadata"`
	Status         Value      `json:"status"`
	ExitSignal     Value      `json:"exit_signal"`
	TasksCompleted Value      `json:"tasks_completed_this_loop"`
	WorkType       Value      `json:"work_type"`
	FilesModified  Value      `json:"files_modified"`
	ErrorCount     Value      `json:"error_count"`
	Confidence     Value      `json:"confidence"`
	Usage          Usage      `json:"usage"` // also Codex's turn.completed
	TotalCostUSD   Value      `json:"total_cost_usd"`
	DurationMS     Value      `json:"duration_ms"`
	DurationAPIMS  Value      `json:"duration_api_ms"`
	NumTurns       Value      `json:"num_turns"`
	IsError        Value      `json:"is_error"`
	APIErrorStatus Value      `json:"api_error_status"`
	Denials        []Denial   `json:"permission_denials" analysis:"denials"`
	Errors         []Value    `json:"errors" analysis:"message"`
	Error          Error      `json:"error"`   // Claude: a string ("rate_limit"); Codex and OpenCode: an object
	Message        Message    `json:"message"` // Claude/Cursor assistant and OpenCode's older events: an object; Codex error event: a string
	Event          Event      `json:"event"`   // Claude stream_event
	RateLimitInfo  RateLimit  `json:"rate_limit_info"`
	RateLimits     RateLimits `json:"rate_limits"`            // Codex token_count event: the usage windows
	Msg            CodexMsg   `json:"msg"`                    // Codex's older exec --json: {"id", "msg": {event}}
	Payload        CodexMsg   `json:"payload"`                // Codex session log: {"type": "event_msg", "payload": {event}}
	ToolCall       ToolCall   `json:"tool_call" analysis:"-"` // Cursor tool_call event
	Name           Value      `json:"name" analysis:"-"`      // Cursor tool_call event: the tool's name (older CLIs)
	ThreadID       Value      `json:"thread_id"`              // Codex thread.started
	Item           Item       `json:"item"`                   // Codex item.started and item.completed
	SessionIDUpper Value      `json:"sessionID"`              // OpenCode 1.x: every event
	Part           Part       `json:"part" analysis:"entry=step"`
	Session        SessionRef `json:"session"` // OpenCode's older events
}

// Metadata is the flat format's metadata object.
type Metadata struct {
	CompletionStatus Value `json:"completion_status"`
	FilesChanged     Value `json:"files_changed"`
	HasErrors        Value `json:"has_errors"`
	SessionID        Value `json:"session_id"`
}

// Usage is Claude's token usage of a call, and Codex's of a turn.
type Usage struct {
	InputTokens         Value `json:"input_tokens"`
	OutputTokens        Value `json:"output_tokens"`
	CacheReadTokens     Value `json:"cache_read_input_tokens"`
	CacheCreationTokens Value `json:"cache_creation_input_tokens"`
	CachedInputTokens   Value `json:"cached_input_tokens"` // Codex: the cached part of input_tokens
}

// Denial is one element of Claude's permission_denials.
type Denial struct {
	ToolName  Value `json:"tool_name"`
	ToolInput struct {
		Command Value `json:"command"`
	} `json:"tool_input"`
}

// Error is Claude's "error" string, or the error object of Codex's
// turn.failed ({"message"}) and OpenCode's error event ({"name", "data":
// {"message"}}).
type Error struct {
	Self    Value `json:"-"` // the value itself: its kind, and its text when a string
	Message Value `json:"message" analysis:"message"`
	Name    Value `json:"name" analysis:"-"`
	Data    struct {
		Message Value `json:"message" analysis:"message"`
	} `json:"data"`
}

// Message is the message object of Claude's and Cursor's assistant events
// and of OpenCode's older message events, or the string of Codex's error
// event.
type Message struct {
	Self    Value   `json:"-" analysis:"message"` // the value itself; a string is an error message
	Role    Value   `json:"role"`
	Content []Entry `json:"content" analysis:"entry=assistant"`
	Parts   []Entry `json:"parts" analysis:"entry=parts"`
}

// Entry is one element of a content or parts list: a typed piece of text.
type Entry struct {
	Type Value `json:"type"`
	Text Value `json:"text" analysis:"piece"`
}

// Event is the inner event of Claude's stream_event.
type Event struct {
	Type         Value `json:"type"` // content_block_start, content_block_delta, content_block_stop...
	Delta        Entry `json:"delta" analysis:"entry=delta"`
	ContentBlock struct {
		Type Value `json:"type"`
		Name Value `json:"name"`
	} `json:"content_block" analysis:"-"`
}

// RateLimit is Claude's rate_limit_event payload.
type RateLimit struct {
	Status        Value `json:"status"` // allowed, allowed_warning, rejected
	ResetsAt      Value `json:"resetsAt"`
	RateLimitType Value `json:"rateLimitType"` // five_hour, seven_day, seven_day_opus, ...
	Utilization   Value `json:"utilization"`   // when sent: the window's used fraction (0..1)
}

// CodexMsg is a Codex protocol event wrapped in another record: the older
// exec --json's "msg" and the session log's "payload".
type CodexMsg struct {
	Type       Value      `json:"type"`
	RateLimits RateLimits `json:"rate_limits"`
}

// RateLimits is Codex's rate-limit snapshot (protocol RateLimitSnapshot):
// the primary (shorter) and secondary (weekly) windows, and the flat
// fields of the first versions that sent one.
type RateLimits struct {
	Primary                RateWindow `json:"primary"`
	Secondary              RateWindow `json:"secondary"`
	PrimaryUsedPercent     Value      `json:"primary_used_percent"`
	SecondaryUsedPercent   Value      `json:"secondary_used_percent"`
	PrimaryWindowMinutes   Value      `json:"primary_window_minutes"`
	SecondaryWindowMinutes Value      `json:"secondary_window_minutes"`
}

// RateWindow is one window of a Codex snapshot.
type RateWindow struct {
	UsedPercent     Value `json:"used_percent"`
	WindowMinutes   Value `json:"window_minutes"`
	ResetsAt        Value `json:"resets_at"`         // unix seconds (newer CLIs)
	ResetsInSeconds Value `json:"resets_in_seconds"` // seconds from the event (older CLIs)
}

// Item is a Codex item: an agent message, a command, a file change, an error...
type Item struct {
	ID      Value   `json:"id" analysis:"-"`
	Type    Value   `json:"type"`
	Status  Value   `json:"status"`
	Command Value   `json:"command"`
	Text    Value   `json:"text" analysis:"text"`
	Content []Entry `json:"content" analysis:"entry=codex"` // older CLIs: output_text entries
	Message Value   `json:"message" analysis:"message"`
}

// Part is the part of an OpenCode 1.x event: text, a tool call, or a
// step's end with its token counts and cost.
type Part struct {
	Type   Value `json:"type"`
	Text   Value `json:"text" analysis:"piece"`
	Tool   Value `json:"tool" analysis:"-"`
	Cost   Value `json:"cost"`
	Tokens struct {
		Input     Value `json:"input"`
		Output    Value `json:"output"`
		Reasoning Value `json:"reasoning"`
		Cache     struct {
			Read  Value `json:"read"`
			Write Value `json:"write"`
		} `json:"cache"`
	} `json:"tokens"`
}

// SessionRef is OpenCode's older {"session": {"id"}}.
type SessionRef struct {
	ID Value `json:"id"`
}

// ToolCall is Cursor's tool_call object: {"name"} in older CLIs, else one
// member "<kind>ToolCall".
type ToolCall struct {
	Name Value  `json:"name"`
	Kind string `json:"-"` // <kind> of a single "<kind>ToolCall" member
}

// Decode reads one JSON document into a Line. It fails only when data is
// not a single valid JSON value; a value of an unexpected shape reads as its
// Kind. Keys match exactly, a repeated key's last value counts, and invalid
// UTF-8 in strings reads as U+FFFD, as the analyser reads them.
func Decode(data []byte, l *Line) error {
	*l = Line{}
	return json.Unmarshal(data, l, decodeOptions)
}

var decodeOptions = json.JoinOptions(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true), tolerant)
