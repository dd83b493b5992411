package config

import (
	"strings"

	"github.com/ralphloop/ralph_loop/internal/sandbox"
)

// sandboxKeys are the keys of the sandbox the agent and the quality gates
// run in (docs/SANDBOX.md).
var sandboxKeys = []*keySpec{
	{name: "SANDBOX", env: []string{"SANDBOX"}, rc: true, def: sandbox.Off,
		flag:    &flagDef{long: "sandbox", arg: "MODE", group: GroupAgent, doc: "SANDBOX.md", help: "run the agent and the quality gates in a sandbox: off, bwrap, seatbelt, container or auto"},
		accepts: "off, bwrap, seatbelt, container, auto", doc: "run the agent and the quality gates in a sandbox: bubblewrap (Linux), sandbox-exec (macOS), a docker or podman container, or the best this machine has",
		set: enumSetter("Valid modes", sandbox.Modes, func(c *Config) *string { return &c.Sandbox })},
	{name: "SANDBOX_NETWORK", env: []string{"SANDBOX_NETWORK"}, rc: true, def: "true",
		accepts: "boolean", doc: "whether the sandboxed agent reaches the network (it needs its API; off for a local agent)",
		set: boolSetter(func(c *Config) *bool { return &c.SandboxNetwork })},
	{name: "SANDBOX_IMAGE", env: []string{"SANDBOX_IMAGE"}, rc: true, def: "",
		fromRepo: personOnly("SANDBOX_IMAGE ignored: a project's .ralphrc cannot choose the image the agent runs in with its credentials; set SANDBOX_IMAGE in your environment"),
		accepts:  "a container image with the agent CLI in it", doc: "the image SANDBOX=container runs the agent and the gates in",
		set: func(c *Config, v string) error { c.SandboxImage = v; return nil }},
	{name: "SANDBOX_READ", env: []string{"SANDBOX_READ"}, rc: true, def: "",
		fromRepo: personOnly("SANDBOX_READ ignored: a project's .ralphrc cannot choose what of your files the sandbox shows; set SANDBOX_READ in your environment"),
		accepts:  "':'-separated absolute paths or ~/paths (not from the project's .ralphrc)", doc: "more files and folders the sandbox shows read-only: the gates' toolchains under $HOME (~/.cargo/bin:~/.rustup)",
		set: func(c *Config, v string) error {
			var paths []string // nil: none
			for _, p := range splitList(v, ":") {
				paths = append(paths, p)
				if !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "~/") {
					return reject("expected absolute paths or ~/paths separated by ':', for example ~/.cargo/bin:~/.rustup")
				}
			}
			c.SandboxRead = paths
			return nil
		}},
	{name: "SANDBOX_ENGINE", env: []string{"SANDBOX_ENGINE"}, rc: true, def: "",
		accepts: "docker, podman (empty: docker, else podman)", doc: "the container engine of SANDBOX=container",
		set: func(c *Config, v string) error {
			if v != "" && v != "docker" && v != "podman" {
				return reject("Valid engines: docker podman")
			}
			c.SandboxEngine = v
			return nil
		}},
}
