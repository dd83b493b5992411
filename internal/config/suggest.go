package config

import (
	"sort"

	"github.com/spf13/pflag"
)

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
