package drivers

import (
	"strings"

	"github.com/ralphloop/ralph_loop/analysis"
)

// longStrings is the part of a format reader that reads long records
// (analysis.LongReader): which of their long strings it reads, and the
// readings of those of the record it reads next.
type longStrings struct{ long map[string]*analysis.Facts }

// ReadsLong reports whether a format reads the long string at path: a
// result's text and summary, a Codex item's text. The others are only
// checked.
func (l *longStrings) ReadsLong(path string) bool {
	if path == "item.text" {
		return true
	}
	if i := strings.Index(path, "]."); strings.HasPrefix(path, "[") && i > 0 {
		path = path[i+2:]
	}
	return path == "result" || path == "summary"
}

var _ analysis.LongReader = (*longStrings)(nil)

func (l *longStrings) Long(m map[string]*analysis.Facts) { l.long = m }

// scanned is the rules' reading of the string at path: the long string's
// when the record had one there, else text's.
func (l *longStrings) scanned(path, text string) *analysis.Facts {
	if f := l.long[path]; f != nil {
		return f
	}
	return scanText(text)
}

// scanText is the rules' reading of a whole text (a reply in one string).
func scanText(text string) *analysis.Facts {
	t := analysis.NewText()
	t.Write([]byte(text))
	return t.Finish()
}
