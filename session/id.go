package session

import "strings"

// maxIDLen is the longest agent session id accepted. Real ids are 26 to 40
// characters (UUIDs, Codex thread ids, OpenCode ses_ ids).
const maxIDLen = 256

// ValidID reports whether id may be saved and handed back to an agent as its
// resume argument. Accepted: 1..maxIDLen characters from A-Z a-z 0-9 and
// - _ . : @ + = /, beginning with a letter or digit (so it can never be read
// as an option). This covers UUIDs (Claude, Cursor, Copilot, Codex thread
// ids), OpenCode's ses_… ids and test ids such as sess-abc. Rejected: empty,
// whitespace or control characters anywhere, non-ASCII, a leading
// punctuation mark, the placeholders null/undefined/none/nil, and ids made of
// zeros and dashes only ("0", the nil UUID) that come from parse failures.
func ValidID(id string) bool {
	if id == "" || len(id) > maxIDLen {
		return false
	}
	if !isAlnum(id[0]) {
		return false
	}
	onlyZeros := true
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !isAlnum(c) && !strings.ContainsRune("-_.:@+=/", rune(c)) {
			return false
		}
		if c != '0' && c != '-' {
			onlyZeros = false
		}
	}
	if onlyZeros {
		return false
	}
	switch strings.ToLower(id) {
	case "null", "undefined", "none", "nil":
		return false
	}
	return true
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
