package config

import "fmt"

// checkFallback applies FALLBACK_DRIVER's rules: it must differ from
// PLATFORM_DRIVER; as claude-code it takes ALLOWED_TOOLS (checked as for
// the main driver); as command it takes AGENT_COMMAND. A fallback that
// cannot be used is refused (a warning that drops it in lenient mode).
func (l *loader) checkFallback() error {
	c := l.c
	src := c.Sources["FALLBACK_DRIVER"]
	label := "FALLBACK_DRIVER"
	if src.Kind == sourceFlag {
		label = src.Name
	}
	var ue *UsageError
	switch {
	case c.FallbackDriver == "":
		return nil
	case c.FallbackDriver == c.Driver:
		given := fmt.Sprintf("%s=%s (%s)", label, c.FallbackDriver, src.describe())
		if src.Kind == sourceFlag {
			given = label + " " + c.FallbackDriver
		}
		ue = &UsageError{Key: label, Value: c.FallbackDriver, Source: src, Accepted: "another driver than PLATFORM_DRIVER",
			Msg: given + " is PLATFORM_DRIVER itself; name another driver to fall back to, or leave FALLBACK_DRIVER empty"}
	case c.FallbackDriver == "claude-code":
		return l.checkTools()
	case c.FallbackDriver == "command":
		if ue = l.agentArgv(label, src); ue == nil {
			return nil
		}
	default:
		return nil
	}
	if err := l.fail(ue, src); err != nil {
		return err
	}
	c.FallbackDriver = ""
	c.Sources["FALLBACK_DRIVER"] = Source{Kind: SourceDefault}
	return nil
}
