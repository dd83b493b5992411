package sandbox

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// UserNamespaces reports whether bubblewrap (tool, a path) can make a
// user namespace here for the loop (root or not): the kernel allows them
// (user.max_user_namespaces > 0), and a bwrap installed setuid root, which
// makes one only where unprivileged users may, finds them allowed. A bwrap
// that is not setuid needs one anyway for a user who is not root.
func UserNamespaces(tool string, root bool) bool {
	if n, ok := procInt("/proc/sys/user/max_user_namespaces"); !ok || n <= 0 {
		return false
	}
	fi, err := os.Stat(tool)
	setuid := err == nil && fi.Mode()&os.ModeSetuid != 0
	if root || !setuid {
		return true
	}
	n, ok := procInt("/proc/sys/kernel/unprivileged_userns_clone") // Debian's switch, when present
	return !ok || n != 0
}

// procInt reads a number from a /proc/sys file.
func procInt(path string) (int, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	return n, err == nil
}

// BwrapForbidsUserNS reports whether bubblewrap (tool) knows
// --disable-userns (0.8 and later): its --help lists it. It runs tool once.
func BwrapForbidsUserNS(tool string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, _ := exec.CommandContext(ctx, tool, "--help").CombinedOutput()
	return strings.Contains(string(out), "--disable-userns")
}
