package config

import (
	"sort"
	"strings"

	"github.com/spf13/pflag"
)

// nearest returns the candidate closest to word by edit distance, or ""
// when none is close enough to be a likely typo (at most 2 edits, and
// fewer than a third of the word for short words).
func nearest(word string, candidates []string) string {
	best, bestD := "", 0
	limit := min(2, max(1, len(word)/3))
	for _, c := range candidates {
		d := editDistance(strings.ToLower(word), strings.ToLower(c))
		if d <= limit && (best == "" || d < bestD) {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the Damerau–Levenshtein distance (adjacent swaps count
// as one edit: "mointor" is one edit from "monitor").
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range rb {
		d[0][j+1] = j + 1
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// flagNames are the long flags, "--name", sorted.
func flagNames() []string {
	var names []string
	newFlagSet().VisitAll(func(f *pflag.Flag) { names = append(names, "--"+f.Name) })
	sort.Strings(names)
	return names
}

// knownKeys are the .ralphrc keys, sorted.
func knownKeys() []string {
	var names []string
	for k := range keyIndex {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}
