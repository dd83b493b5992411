package analysis

// A FormatReader reads one output as one agent CLI's JSON format, which is
// described next to its driver (drivers/*_format.go). Options.Formats makes
// one per format for each output; reader.go hands them its JSON documents,
// the rules read the Reply of the format the output turned out to be in.
// A reader knows whether its format is the driver's own.
type FormatReader interface {
	// Skip counts a one-line record whose leading "type" is typ without
	// decoding it, when the format reads nothing of it (or not yet), and
	// reports whether it did; open tells that another format may still
	// read a record of any type.
	Skip(typ []byte, line []byte, open bool) bool
	// Open: the format may still read a record of any type.
	Open() bool
	// Reads reports whether the format reads record v, whose leading
	// "type" is typ; first tells that v is the output's first document.
	Reads(typ []byte, v []byte, first bool) bool
	// Record decodes the JSON document v and gathers what it says (an
	// array is handed over only as the first document). It fails, having
	// gathered nothing, when v is not one valid JSON value. It gives
	// window each usage window v reports; resetIn is the window's reset
	// time in seconds from the end of the call when only that is known
	// (older Codex), else -1.
	Record(v []byte, first bool, window func(w LimitWindow, resetIn int64)) error
	// Events is the output read as this format's events (nil: none came).
	Events() *Reply
	// Document is the output read as one document of this format (lone:
	// it was the only document), nil when it is not.
	Document(lone bool) *Reply
}

// Reply is an output as its format reads it: the agent's text and what the
// CLI reported of the call.
type Reply struct {
	Format  Format
	Text    *Facts // the agent's text; nil means ""
	Session string // "" when none ("0" and "null" are none)
	Where   string // where the text came from, for the explanation

	// Object: the output is a result object (the object, array and
	// result-event shapes), whose own fields follow, each as jq -r prints
	// `.field // default` in the bash loop's parse_json_response. Without
	// one, JSONL semantics: the keyword heuristics.
	Object     bool
	HasResult  bool   // a "result" key (any value)
	Summary    *Facts // "summary" when "result" is absent, null or false and summary a string
	Status     string // "status" // "UNKNOWN" (metadata.completion_status "complete" makes it COMPLETE)
	ExitKey    bool   // an "exit_signal" key (any value)
	ExitSignal string // "exit_signal" // "false"
	Tasks      string // "tasks_completed_this_loop" // "0"
	WorkType   string // "work_type" // "UNKNOWN"
	Files      string // "metadata.files_changed" // "files_modified" // "0"
	ErrorCount string // "error_count" // "0"
	HasErrors  string // "metadata.has_errors" // "false"
	Confidence string // "confidence" // "0"

	// Usage: the counts the output reported, nil the others (null in
	// .response_analysis).
	InputTokens         *int64
	OutputTokens        *int64
	CacheReadTokens     *int64
	CacheCreationTokens *int64
	CostUSD             *float64 // the call's cost in US dollars
	DurationMS          *int64   // the call's wall time
	DurationAPIMS       *int64   // the time spent waiting on the API
	NumTurns            *int64   // the agent's turns in the call

	IsError       bool
	ErrorMessages []string
	Denied        []string // structured denials, formatted as the bash loop does
	DenialCount   int
	API429        bool // an API error status 429 (or error "rate_limit")
	Cut           int  // the text deltas of an unfinished message were cut at this many bytes (0: not cut)
}

// usageFields says which Usage fields an output reported (the others are
// null in .response_analysis).
type usageFields uint8

const (
	usageIn usageFields = 1 << iota
	usageOut
	usageCacheRead
	usageCacheCreate
	usageCost
)

// longAt is the length past which a line of JSON is not held whole: a
// longRecord reads it, in bounded memory, as its bytes come, for the
// formats that are LongReaders.
const longAt = 256 << 10

// LongReader is a FormatReader that reads records past longAt, whose long
// strings are decoded in pieces as they come rather than held. ReadsLong
// says which long strings it reads, by their path ("result", "item.text",
// "[2].result"; the others are only checked); Long gives it the text
// rules' reading of those of the record it reads next (nil after it).
type LongReader interface {
	ReadsLong(path string) bool
	Long(longs map[string]*Facts)
}
