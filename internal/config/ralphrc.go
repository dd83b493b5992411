package config

import (
	"sort"
	"strings"

	"github.com/ralphloop/ralph_loop/internal/clip"
	"github.com/ralphloop/ralph_loop/internal/lazyre"
	"github.com/ralphloop/ralph_loop/internal/typo"
)

// rcValue is one accepted assignment of a .ralphrc file: the value after
// quote removal and ${VAR:-default} resolution, and the 1-based line that set
// it (the last one when a key is repeated).
type rcValue struct {
	Value string
	Line  int
}

var (
	rcAssign = lazyre.Compile(`^([A-Z_][A-Z0-9_]*)=(.*)$`)
	// A whole value that is one parameter reference: ${NAME:-default},
	// ${NAME} or $NAME. Anything else (partial, nested, other operators)
	// stays literal, as the bash loop does.
	rcDefaultRef = lazyre.Compile(`^\$\{([A-Za-z_][A-Za-z0-9_]*):-([^}]*)\}$`)
	rcBracedRef  = lazyre.Compile(`^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$`)
	rcPlainRef   = lazyre.Compile(`^\$([A-Za-z_][A-Za-z0-9_]*)$`)
)

// rcSpace is the set of characters trimmed from both ends of a line: POSIX
// [:space:], so a Windows CR disappears too.
const rcSpace = " \t\n\v\f\r"

// parseRC reads .ralphrc data with the bash loop's grammar. It never executes
// anything: it only recognises KEY=VALUE lines.
//
//   - Every physical line counts for line numbers; a last line without a
//     newline is read too.
//   - Blanks around the line are trimmed; empty lines and lines starting
//     with '#' are skipped (inline comments are part of the value).
//   - A line containing "$(" or a backtick is rejected with a warning.
//   - Anything but KEY=VALUE (upper-case key, '=' right after it; so also
//     "export KEY=v" and "KEY = v") is skipped with a warning.
//   - Keys outside allowed are skipped with a warning.
//   - One pair of matching outer quotes ("..." or '...') is removed.
//   - A value that is exactly ${NAME:-default}, ${NAME} or $NAME is resolved
//     against the earlier lines of this file, then the environment (never
//     against built-in defaults).
//
// file is the name used in warnings; lookupEnv may be nil.
func parseRC(data []byte, file string, allowed func(string) bool, lookupEnv func(string) (string, bool)) (map[string]rcValue, []Warning) {
	vals := map[string]rcValue{}
	var warns []Warning
	lookup := func(name string) string {
		if v, ok := vals[name]; ok {
			return v.Value
		}
		if lookupEnv != nil {
			if v, ok := lookupEnv(name); ok {
				return v
			}
		}
		return ""
	}
	text := strings.TrimSuffix(string(data), "\n")
	if text == "" {
		return vals, nil
	}
	for i, raw := range strings.Split(text, "\n") {
		n := i + 1
		line := strings.Trim(raw, rcSpace)
		if line == "" || line[0] == '#' {
			continue
		}
		if strings.Contains(line, "$(") || strings.Contains(line, "`") {
			warns = append(warns, Warning{File: file, Line: n, Msg: "rejected (command substitution): " + clip.Value(line)})
			continue
		}
		m := rcAssign().FindStringSubmatch(line)
		if m == nil {
			msg := "skipped (not KEY=VALUE): " + clip.Value(line)
			if strings.HasPrefix(line, "export ") {
				msg += " (drop the 'export')"
			}
			warns = append(warns, Warning{File: file, Line: n, Msg: msg})
			continue
		}
		key, value := m[1], m[2]
		if !allowed(key) {
			msg := "unknown key ignored: " + key
			if hint := rcKeyHint(key); hint != "" {
				msg += " (" + hint + ")"
			} else if near := typo.Nearest(key, knownKeys()); near != "" {
				msg += "; did you mean " + near + "?"
			}
			warns = append(warns, Warning{File: file, Line: n, Msg: msg})
			continue
		}
		value = unquote(value)
		if sm := rcDefaultRef().FindStringSubmatch(value); sm != nil {
			if cur := lookup(sm[1]); cur != "" {
				value = cur
			} else {
				value = sm[2]
			}
		} else if sm := rcBracedRef().FindStringSubmatch(value); sm != nil {
			value = lookup(sm[1])
		} else if sm := rcPlainRef().FindStringSubmatch(value); sm != nil {
			value = lookup(sm[1])
		}
		vals[key] = rcValue{Value: value, Line: n}
	}
	return vals, warns
}

// unquote removes one pair of matching outer double or single quotes.
func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	return v
}

// knownKeys are the .ralphrc keys, sorted.
func knownKeys() []string {
	names := make([]string, 0, len(keyIndex))
	for k := range keyIndex {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}
