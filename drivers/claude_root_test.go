package drivers

import "testing"

func TestRootBypass(t *testing.T) {
	env := func(kv ...string) func(string) (string, bool) {
		return func(k string) (string, bool) {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1], true
				}
			}
			return "", false
		}
	}
	base := RootBypass{Root: true, PermissionMode: "bypassPermissions", Driver: "claude-code", LookupEnv: env()}
	tests := []struct {
		name             string
		edit             func(*RootBypass)
		asked, refused   bool
		wantSandboxedVar string
	}{
		{name: "root, bypass, no sandbox", asked: true, refused: true},
		{name: "not root", edit: func(r *RootBypass) { r.Root = false }},
		{name: "another mode", edit: func(r *RootBypass) { r.PermissionMode = "acceptEdits" }},
		{name: "another agent", edit: func(r *RootBypass) { r.Driver = "codex" }},
		{name: "claude as the fallback", edit: func(r *RootBypass) { r.Driver, r.Fallback = "codex", "claude-code" }, asked: true, refused: true},
		{name: "IS_SANDBOX=1", edit: func(r *RootBypass) { r.LookupEnv = env("IS_SANDBOX", "1") }, asked: true, wantSandboxedVar: "IS_SANDBOX=1"},
		{name: "IS_SANDBOX=true is not 1", edit: func(r *RootBypass) { r.LookupEnv = env("IS_SANDBOX", "true") }, asked: true, refused: true},
		{name: "CLAUDE_CODE_BUBBLEWRAP=1", edit: func(r *RootBypass) { r.LookupEnv = env("CLAUDE_CODE_BUBBLEWRAP", "1") }, asked: true, wantSandboxedVar: "CLAUDE_CODE_BUBBLEWRAP=1"},
		{name: "a SANDBOX mode", edit: func(r *RootBypass) { r.Sandbox = "bwrap" }, asked: true, wantSandboxedVar: "SANDBOX=bwrap"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := base
			if tc.edit != nil {
				tc.edit(&r)
			}
			asked, refused, by := r.Check()
			if asked != tc.asked || refused != tc.refused || by != tc.wantSandboxedVar {
				t.Errorf("Check() = %v, %v, %q; want %v, %v, %q", asked, refused, by, tc.asked, tc.refused, tc.wantSandboxedVar)
			}
		})
	}
}
