// Package examples_test checks the scheduler samples of docs/SCALING.md:
// the Kubernetes Indexed Job and the GitHub Actions matrix decode strictly
// (an unknown or misspelt field is an error), the exit codes they map are
// ralph_loop's own, the ralph_loop command lines they run are accepted by
// its configuration, and their shell scripts pass the exit codes on as the
// documents say.
package examples_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/ralphloop/ralph_loop/internal/config"
)

// decodeStrict decodes the one YAML document in path into v, rejecting
// fields v does not have.
func decodeStrict(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var more any
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		t.Fatalf("%s: more than one YAML document (%v)", path, err)
	}
}

// The fields of batch/v1 Job the sample uses, named as in k8s.io/api.
type (
	job struct {
		APIVersion string   `yaml:"apiVersion"`
		Kind       string   `yaml:"kind"`
		Metadata   metadata `yaml:"metadata"`
		Spec       jobSpec  `yaml:"spec"`
	}
	metadata struct {
		Name   string            `yaml:"name"`
		Labels map[string]string `yaml:"labels"`
	}
	jobSpec struct {
		CompletionMode          string           `yaml:"completionMode"`
		Completions             *int             `yaml:"completions"`
		Parallelism             *int             `yaml:"parallelism"`
		BackoffLimitPerIndex    *int             `yaml:"backoffLimitPerIndex"`
		TTLSecondsAfterFinished *int             `yaml:"ttlSecondsAfterFinished"`
		PodFailurePolicy        podFailurePolicy `yaml:"podFailurePolicy"`
		Template                podTemplate      `yaml:"template"`
	}
	podFailurePolicy struct {
		Rules []struct {
			Action      string `yaml:"action"`
			OnExitCodes *struct {
				ContainerName string `yaml:"containerName"`
				Operator      string `yaml:"operator"`
				Values        []int  `yaml:"values"`
			} `yaml:"onExitCodes"`
			OnPodConditions []struct {
				Type string `yaml:"type"`
			} `yaml:"onPodConditions"`
		} `yaml:"rules"`
	}
	podTemplate struct {
		Metadata metadata `yaml:"metadata"`
		Spec     struct {
			RestartPolicy                 string `yaml:"restartPolicy"`
			TerminationGracePeriodSeconds *int   `yaml:"terminationGracePeriodSeconds"`
			SecurityContext               struct {
				RunAsUser  int `yaml:"runAsUser"`
				RunAsGroup int `yaml:"runAsGroup"`
				FSGroup    int `yaml:"fsGroup"`
			} `yaml:"securityContext"`
			Containers []container `yaml:"containers"`
			Volumes    []struct {
				Name                  string `yaml:"name"`
				PersistentVolumeClaim *struct {
					ClaimName string `yaml:"claimName"`
				} `yaml:"persistentVolumeClaim"`
				ConfigMap *struct {
					Name string `yaml:"name"`
				} `yaml:"configMap"`
			} `yaml:"volumes"`
		} `yaml:"spec"`
	}
	container struct {
		Name    string   `yaml:"name"`
		Image   string   `yaml:"image"`
		Command []string `yaml:"command"`
		Args    []string `yaml:"args"`
		Env     []struct {
			Name      string `yaml:"name"`
			Value     string `yaml:"value"`
			ValueFrom *struct {
				SecretKeyRef *struct {
					Name string `yaml:"name"`
					Key  string `yaml:"key"`
				} `yaml:"secretKeyRef"`
			} `yaml:"valueFrom"`
		} `yaml:"env"`
		Resources struct {
			Requests map[string]string `yaml:"requests"`
			Limits   map[string]string `yaml:"limits"`
		} `yaml:"resources"`
		VolumeMounts []struct {
			Name      string `yaml:"name"`
			MountPath string `yaml:"mountPath"`
			ReadOnly  bool   `yaml:"readOnly"`
		} `yaml:"volumeMounts"`
	}
)

// documentedExits is README's "Exit codes" table: each of ralph_loop's
// exit codes and its meaning, the contract the samples are written to.
func documentedExits(t *testing.T) map[int]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, _ := strings.Cut(string(data), "\n### Exit codes\n")
	codes := map[int]string{}
	for _, line := range strings.Split(table, "\n") {
		cells := strings.Split(line, "|")
		if strings.HasPrefix(line, "#") {
			break
		}
		if len(cells) < 3 {
			continue
		}
		for _, c := range strings.Split(cells[1], ",") {
			if n, err := strconv.Atoi(strings.TrimSpace(c)); err == nil {
				codes[n] = strings.TrimSpace(cells[2])
			}
		}
	}
	if len(codes) < 10 {
		t.Fatalf("README's Exit codes table: %d codes read; want every one", len(codes))
	}
	return codes
}

// exitCodes are all of ralph_loop's exit codes but 0, in order.
func exitCodes(t *testing.T) []int {
	var out []int
	for code := range documentedExits(t) {
		if code != 0 {
			out = append(out, code)
		}
	}
	slices.Sort(out)
	return out
}

// exitCode is the exit code whose meaning in README starts with meaning.
func exitCode(t *testing.T, meaning string) int {
	t.Helper()
	for code, m := range documentedExits(t) {
		if strings.HasPrefix(m, meaning) {
			return code
		}
	}
	t.Fatalf("README's Exit codes table has no code meaning %q", meaning)
	return -1
}

// The exit codes the samples single out, by their meaning in README.
const (
	exitComplete   = "the project is complete"
	exitError      = "usage, configuration or start-up error"
	exitHalted     = "halted:"
	exitMaxLoops   = "`--max-loops` reached"
	exitBudget     = "`--max-cost` or `--max-tokens` reached"
	exitStalled    = "`STALL_LIMIT` stalled loops"
	exitUnproven   = "`COMPLETION_MODE=strict`"
	exitUsageLimit = "stopped at the provider's usage limit"
	exitUsagePace  = "stopped before the usage limit"
)

func TestIndexedJob(t *testing.T) {
	var j job
	decodeStrict(t, filepath.Join("k8s", "ralph-indexed-job.yaml"), &j)
	if j.APIVersion != "batch/v1" || j.Kind != "Job" || j.Spec.CompletionMode != "Indexed" {
		t.Errorf("apiVersion %q, kind %q, completionMode %q; want an Indexed batch/v1 Job", j.APIVersion, j.Kind, j.Spec.CompletionMode)
	}
	// The API server refuses a podFailurePolicy without restartPolicy
	// Never, and FailIndex without backoffLimitPerIndex.
	if j.Spec.Template.Spec.RestartPolicy != "Never" {
		t.Errorf("restartPolicy %q; a podFailurePolicy needs Never", j.Spec.Template.Spec.RestartPolicy)
	}
	if j.Spec.BackoffLimitPerIndex == nil {
		t.Error("no backoffLimitPerIndex; the FailIndex action needs it")
	}
	if len(j.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("%d containers; want the one that runs ralph_loop", len(j.Spec.Template.Spec.Containers))
	}
	c := j.Spec.Template.Spec.Containers[0]
	checkPolicy(t, j.Spec.PodFailurePolicy, c.Name)

	script := strings.Join(c.Args, "\n")
	env := map[string]string{}
	for _, e := range c.Env {
		if e.ValueFrom == nil {
			env[e.Name] = e.Value
		}
	}
	cfg := loadCommandLine(t, script, "exec ralph_loop ", env)
	if cfg.EventsFile != "-" {
		t.Errorf("events go to %q; want - (stdout, for the log pipeline)", cfg.EventsFile)
	}
	if !slices.Equal(c.Command, []string{"/bin/sh", "-c"}) {
		t.Fatalf("command %q; want /bin/sh -c SCRIPT", c.Command)
	}
	runPodScript(t, script)
}

// checkPolicy checks that the podFailurePolicy of the container named
// container maps ralph_loop's exit codes as docs/SCALING.md says.
func checkPolicy(t *testing.T, p podFailurePolicy, container string) {
	t.Helper()
	byAction := map[string][]int{}
	disruption := false
	for _, r := range p.Rules {
		for _, pc := range r.OnPodConditions {
			disruption = disruption || (pc.Type == "DisruptionTarget" && r.Action == "Ignore")
		}
		if r.OnExitCodes == nil {
			continue
		}
		if r.OnExitCodes.ContainerName != container || r.OnExitCodes.Operator != "In" {
			t.Errorf("rule %s: container %q, operator %q; want %q and In", r.Action, r.OnExitCodes.ContainerName, r.OnExitCodes.Operator, container)
		}
		for _, code := range r.OnExitCodes.Values {
			if !slices.Contains(exitCodes(t), code) {
				t.Errorf("rule %s: exit code %d is not one of ralph_loop's (README's Exit codes)", r.Action, code)
			}
		}
		byAction[r.Action] = append(byAction[r.Action], r.OnExitCodes.Values...)
	}
	if !disruption {
		t.Error("no Ignore rule for the DisruptionTarget condition: a node drain would use up a retry")
	}
	// Not retried: what a retry cannot change (a bad configuration, a
	// halt, a stall or a claim of done that is not so, which need a
	// person, a budget spent). Retried without counting: a stop at the
	// usage limit.
	want := map[string][]int{
		"FailIndex": {exitCode(t, exitError), exitCode(t, exitHalted), exitCode(t, exitBudget), exitCode(t, exitStalled), exitCode(t, exitUnproven)},
		"Ignore":    {exitCode(t, exitUsageLimit), exitCode(t, exitUsagePace)},
	}
	for action, codes := range want {
		got := slices.Sorted(slices.Values(byAction[action]))
		if !slices.Equal(got, codes) {
			t.Errorf("%s on exit codes %v; want %v", action, got, codes)
		}
	}
}

// settingFlags reads a command line that runs the loop: settings' flags
// only ("--calls 30", "--max-loops=10", "--verbose"); a command's flag, a
// short form or a stray word is an error.
func settingFlags(args []string) (*config.FlagValues, error) {
	byName := map[string]config.Flag{}
	for _, f := range config.Flags() {
		byName[f.Long] = f
	}
	flags := &config.FlagValues{}
	for i := 0; i < len(args); i++ {
		name, value, hasValue := strings.Cut(strings.TrimPrefix(args[i], "--"), "=")
		f, ok := byName[name]
		if !ok || !strings.HasPrefix(args[i], "--") {
			return nil, fmt.Errorf("%s is no setting's flag: the line does not run the loop", args[i])
		}
		switch {
		case hasValue:
		case f.Arg == "":
			value = "true"
		case i+1 < len(args):
			i++
			value = args[i]
		default:
			return nil, fmt.Errorf("%s needs a value", args[i])
		}
		if err := flags.Set(name, value); err != nil {
			return nil, err
		}
	}
	return flags, nil
}

// loadCommandLine finds the line of script that starts with prefix (the
// ralph_loop command line, up to a redirection or ||) and loads
// ralph_loop's configuration from it and env, as a run would.
func loadCommandLine(t *testing.T, script, prefix string, env map[string]string) *config.Config {
	t.Helper()
	for line := range strings.Lines(script) {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		var args []string
		for _, w := range strings.Fields(strings.TrimPrefix(line, prefix)) {
			if w == "||" || strings.HasPrefix(w, ">") {
				break
			}
			args = append(args, w)
		}
		lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
		flags, err := settingFlags(args)
		if err != nil {
			t.Fatalf("%s%s: %v", prefix, strings.Join(args, " "), err)
		}
		cfg, _, err := config.Load(flags, true, lookup, t.TempDir(), nil)
		if err != nil {
			t.Fatalf("%s%s: %v", prefix, strings.Join(args, " "), err)
		}
		return cfg
	}
	t.Fatalf("no line starting with %q in:\n%s", prefix, script)
	return nil
}

// fakeTools puts a git whose clone makes an empty repository and a
// ralph_loop that records its directory and arguments and exits with
// $FAKE_EXIT into a directory for PATH.
func fakeTools(t *testing.T) (bin, record string) {
	t.Helper()
	bin = t.TempDir()
	record = filepath.Join(t.TempDir(), "ralph_loop.args")
	tools := map[string]string{
		"git":        "#!/bin/sh\n[ \"$1\" = clone ] || exit 2\nfor last; do :; done\nmkdir -p \"$last/.git\"\n",
		"ralph_loop": "#!/bin/sh\necho \"$PWD $*\" >>\"$FAKE_RECORD\"\nexit \"$FAKE_EXIT\"\n",
	}
	for name, body := range tools {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return bin, record
}

// runPodScript runs the pod's script with its paths moved into a
// temporary directory: the repository of the pod's index is cloned once,
// ralph_loop runs in it and its exit code is the pod's; an index without
// a repository fails with 1 (not retried).
func runPodScript(t *testing.T, script string) {
	bin, record := fakeTools(t)
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "repos"), []byte("https://example.com/a.git\nhttps://example.com/b.git\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script = strings.ReplaceAll(script, "/etc/ralph/repos", filepath.Join(root, "repos"))
	script = strings.ReplaceAll(script, "/work/", root+"/work/")
	run := func(index string, exit int) (int, string) {
		cmd := exec.Command("/bin/sh", "-c", script)
		cmd.Env = append(os.Environ(), "PATH="+bin+":/usr/bin:/bin", "JOB_COMPLETION_INDEX="+index,
			"FAKE_RECORD="+record, "FAKE_EXIT="+strconv.Itoa(exit))
		out, _ := cmd.CombinedOutput()
		return cmd.ProcessState.ExitCode(), string(out)
	}
	for _, code := range []int{exitCode(t, exitComplete), exitCode(t, exitHalted), exitCode(t, exitUsageLimit)} {
		if got, out := run("1", code); got != code {
			t.Errorf("index 1, ralph_loop exits %d: the pod exits %d; want the same (%s)", code, got, out)
		}
	}
	data, _ := os.ReadFile(record)
	want := strings.Repeat(root+"/work/1 --events -\n", 3)
	if string(data) != want {
		t.Errorf("ralph_loop ran as:\n%s\nwant:\n%s", data, want)
	}
	if got, out := run("2", 0); got != exitCode(t, exitError) || !strings.Contains(out, "no repository on line 3") {
		t.Errorf("index 2 (no line 3): exit %d, %q; want exit 1 and the missing line named", got, out)
	}
}

// The fields of a GitHub Actions workflow the sample uses.
type (
	workflow struct {
		Name string `yaml:"name"`
		On   struct {
			WorkflowDispatch *struct{} `yaml:"workflow_dispatch"`
			Schedule         []struct {
				Cron string `yaml:"cron"`
			} `yaml:"schedule"`
		} `yaml:"on"`
		Permissions map[string]string `yaml:"permissions"`
		Concurrency struct {
			Group            string `yaml:"group"`
			CancelInProgress bool   `yaml:"cancel-in-progress"`
		} `yaml:"concurrency"`
		Jobs map[string]ciJob `yaml:"jobs"`
	}
	ciJob struct {
		RunsOn         string `yaml:"runs-on"`
		TimeoutMinutes int    `yaml:"timeout-minutes"`
		Strategy       struct {
			FailFast    *bool               `yaml:"fail-fast"`
			MaxParallel int                 `yaml:"max-parallel"`
			Matrix      map[string][]string `yaml:"matrix"`
		} `yaml:"strategy"`
		Env   map[string]string `yaml:"env"`
		Steps []struct {
			Name             string            `yaml:"name"`
			ID               string            `yaml:"id"`
			If               string            `yaml:"if"`
			Uses             string            `yaml:"uses"`
			With             map[string]string `yaml:"with"`
			Run              string            `yaml:"run"`
			WorkingDirectory string            `yaml:"working-directory"`
			Env              map[string]string `yaml:"env"`
		} `yaml:"steps"`
	}
)

func TestMatrixWorkflow(t *testing.T) {
	var w workflow
	decodeStrict(t, filepath.Join("ci", "ralph-matrix.yml"), &w)
	j, ok := w.Jobs["loop"]
	if !ok || len(w.Jobs) != 1 {
		t.Fatalf("jobs %v; want the one job loop", slices.Sorted(maps.Keys(w.Jobs)))
	}
	if j.Strategy.FailFast == nil || *j.Strategy.FailFast {
		t.Error("fail-fast is not false: one halted project would cancel the others")
	}
	if len(j.Strategy.Matrix["project"]) == 0 {
		t.Error("no matrix.project list")
	}
	var script string
	env := map[string]string{}
	for k, v := range j.Env {
		env[k] = v
	}
	for _, s := range j.Steps {
		if strings.Contains(s.Run, "ralph_loop ||") {
			script = s.Run
			for k, v := range s.Env {
				if !strings.Contains(v, "${{") {
					env[k] = v
				}
			}
		}
	}
	cfg := loadCommandLine(t, script, "ralph_loop", env)
	if cfg.MaxLoops <= 0 {
		t.Errorf("MAX_LOOPS %d; a CI job needs a bounded run", cfg.MaxLoops)
	}

	// The step succeeds when the plan is done or MAX_LOOPS is reached (the
	// next run goes on) and fails with ralph_loop's code otherwise.
	bin, _ := fakeTools(t)
	for _, code := range exitCodes(t) {
		want := code
		if code == exitCode(t, exitMaxLoops) {
			want = 0
		}
		out := filepath.Join(t.TempDir(), "github_output")
		cmd := exec.Command("bash", "--noprofile", "--norc", "-e", "-c", script)
		cmd.Dir = t.TempDir()
		cmd.Env = append(os.Environ(), "PATH="+bin+":/usr/bin:/bin", "GITHUB_OUTPUT="+out,
			"FAKE_RECORD="+filepath.Join(cmd.Dir, "record"), "FAKE_EXIT="+strconv.Itoa(code))
		text, _ := cmd.CombinedOutput()
		if got := cmd.ProcessState.ExitCode(); got != want {
			t.Errorf("ralph_loop exits %d: the step exits %d; want %d (%s)", code, got, want, text)
		}
		if data, _ := os.ReadFile(out); string(data) != "exit_code="+strconv.Itoa(code)+"\n" {
			t.Errorf("ralph_loop exits %d: step output %q", code, data)
		}
	}
}
