package gates

import (
	"slices"
	"testing"
)

func TestShellFor(t *testing.T) {
	t.Parallel()
	const win = `C:\Windows`
	for _, tc := range []struct {
		bash, root, comspec string
		want                []string
	}{
		{"bash", "", "", []string{"bash", "-c", "make test"}},
		{`C:\Program Files\Git\usr\bin\bash.exe`, win, `C:\Windows\system32\cmd.exe`, []string{`C:\Program Files\Git\usr\bin\bash.exe`, "-c", "make test"}},
		{`C:\WINDOWS\System32\bash.exe`, win, `C:\Windows\system32\cmd.exe`, []string{`C:\Windows\system32\cmd.exe`, "/d", "/s", "/c", "make test"}},
		{"", win, "", []string{"cmd.exe", "/d", "/s", "/c", "make test"}},
	} {
		if got := shellFor("make test", tc.bash, tc.root, tc.comspec); !slices.Equal(got, tc.want) {
			t.Errorf("shellFor(%q, %q) = %q, want %q", tc.bash, tc.root, got, tc.want)
		}
	}
}
