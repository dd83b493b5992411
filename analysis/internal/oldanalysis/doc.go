// Package oldanalysis is the analyser as it was before the one-reading
// rewrite, kept only as the oracle of analysis's differential tests until
// the new reading matches it.
package oldanalysis
