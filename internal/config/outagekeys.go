package config

// outageKeys are the keys of a provider outage: how transient agent
// failures are waited out (docs/LOOP-CONTROL.md), validated last.
var outageKeys = []*keySpec{
	{name: "RETRY_MAX_DELAY", env: []string{"RETRY_MAX_DELAY"}, rc: true, def: "30m",
		flag:    &flagDef{long: "retry-max-delay", arg: "DURATION", group: GroupLoop, doc: "LOOP-CONTROL.md", help: "longest wait between tries while the provider is down (overloaded, 5xx, unreachable)"},
		accepts: "duration > 0", doc: "longest wait between the tries of a provider outage (transient failures back off 1s, 2s, 4s, … up to this)",
		set: func(c *Config, v string) error {
			d, err := parseDuration(v)
			if err != nil || d <= 0 {
				return reject("expected a duration > 0 such as 30m")
			}
			c.RetryMaxDelay = d
			return nil
		}},
	{name: "OUTAGE_MAX", env: []string{"OUTAGE_MAX"}, rc: true, def: "6h",
		flag:    &flagDef{long: "outage-max", arg: "DURATION", group: GroupLoop, help: "stop (exit 10) once such an outage has lasted this long, 0 for no limit"},
		accepts: "duration (0 = no limit)", doc: "stop once a provider outage (transient failures in a row) has lasted this long (exit 10)",
		set: durationSetter(func(c *Config) *int64 { return (*int64)(&c.OutageMax) })},
}
