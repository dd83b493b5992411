package notify

// desktopArgv returns how this system shows a desktop notice, or nil when
// it has no way: notify-send (Linux, the BSDs), osascript (macOS),
// PowerShell (Windows). The title and the text are arguments (PowerShell
// reads them from RALPH_TEXT), never spliced into a script.
func desktopArgv(goos string, lookPath func(string) (string, error)) func(title, text string) []string {
	find := func(names ...string) string {
		for _, n := range names {
			if p, err := lookPath(n); err == nil {
				return p
			}
		}
		return ""
	}
	switch goos {
	case "darwin":
		if p := find("osascript"); p != "" {
			return func(title, text string) []string {
				return []string{p, "-e", "on run argv", "-e", "display notification (item 2 of argv) with title (item 1 of argv)", "-e", "end run", title, text}
			}
		}
	case "windows":
		if p := find("powershell.exe", "pwsh.exe", "powershell", "pwsh"); p != "" {
			return func(title, text string) []string {
				return []string{p, "-NoProfile", "-NonInteractive", "-Command", windowsNotice}
			}
		}
	default:
		if p := find("notify-send"); p != "" {
			return func(title, text string) []string {
				return []string{p, "--app-name=ralph_loop", title, text}
			}
		}
	}
	return nil
}

// windowsNotice shows $env:RALPH_TEXT as a balloon tip of the tray.
const windowsNotice = `Add-Type -AssemblyName System.Windows.Forms; ` +
	`$n = New-Object System.Windows.Forms.NotifyIcon; $n.Icon = [System.Drawing.SystemIcons]::Information; ` +
	`$n.Visible = $true; $n.ShowBalloonTip(10000, 'ralph_loop', $env:RALPH_TEXT, 'Info'); Start-Sleep -Seconds 5; $n.Dispose()`
