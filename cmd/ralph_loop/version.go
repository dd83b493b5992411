package main

import (
	"fmt"
	"runtime/debug"

	"github.com/ralphloop/ralph_loop/internal/config"
)

// versionCommand is --version: the version, and exit.
var versionCommand = &command{
	flag: &flagSpec{Flag: config.Flag{Long: "version", Group: config.GroupMain, Common: true, Help: "print the version and exit"},
		kind: atOnceFlag},
	noConfig: true,
	where:    whereItIs,
	run: func(e *runEnv, _ *line) error {
		fmt.Fprintf(e.safeOut, "ralph_loop %s\n", programVersion())
		return nil
	},
}

// programVersion is the version this binary says it is: its build stamp,
// else the module version `go install ...@VERSION` recorded, else the
// development version.
func programVersion() string {
	if version == devVersion {
		if v := moduleVersion(debug.ReadBuildInfo()); v != "" {
			return v
		}
	}
	return version
}

// moduleVersion is the version that `go install
// github.com/ralphloop/ralph_loop/cmd/ralph_loop@VERSION` records in the
// binary, without its v: such a build has no -ldflags stamp, only the
// module's version. "" for every other build: a build in a checkout records
// "(devel)" or a version derived from git next to its vcs settings, and is
// stamped (install.sh, scripts/release.sh) or keeps the development version.
func moduleVersion(bi *debug.BuildInfo, ok bool) string {
	if !ok || bi == nil || bi.Main.Version == "" || bi.Main.Version == "(devel)" {
		return ""
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs" {
			return ""
		}
	}
	v := bi.Main.Version
	if v[0] == 'v' {
		v = v[1:]
	}
	return v
}
