package main

import (
	"runtime/debug"
	"testing"
)

func TestModuleVersion(t *testing.T) {
	vcs := []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "71dc3fa"}}
	for _, c := range []struct {
		name string
		bi   *debug.BuildInfo
		ok   bool
		want string
	}{
		{"go install @v0.2.0", &debug.BuildInfo{Main: debug.Module{Version: "v0.2.0"}}, true, "0.2.0"},
		{"go install @main", &debug.BuildInfo{Main: debug.Module{Version: "v0.2.1-0.20261125012856-71dc3fa2f8e1"}}, true, "0.2.1-0.20261125012856-71dc3fa2f8e1"},
		{"build in a checkout, no vcs", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true, ""},
		{"build in a checkout with vcs", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261125012856-71dc3fa2f8e1+dirty"}, Settings: vcs}, true, ""},
		{"test binary", &debug.BuildInfo{}, true, ""},
		{"no build information", nil, false, ""},
	} {
		if got := moduleVersion(c.bi, c.ok); got != c.want {
			t.Errorf("%s: moduleVersion = %q; want %q", c.name, got, c.want)
		}
	}
}
