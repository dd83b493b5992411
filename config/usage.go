package config

import "io"

// usageText is the --help output. It names every flag of the bash loop, with
// the same short forms and meaning, then ours. Defaults shown are the
// built-in ones.
const usageText = `ralph_loop - run an AI coding agent again and again until the project's plan is done

Usage: ralph_loop [OPTIONS]

Run it in the root of a bmalph/Ralph project, the directory that holds .ralph/.
No .ralph/ yet? Run 'ralph_loop --init' (or 'bmalph init') there first.

Options:
  -h, --help                  show this help and exit
  -c, --calls NUM             agent calls allowed per clock hour (default: 100)
  -p, --prompt FILE           prompt file, relative to the current directory
                              (default: .ralph/PROMPT.md)
  -s, --status                print status.json and a summary (--json: one object), exit
  -m, --monitor               run inside a tmux session next to a live monitor (needs tmux)
  -v, --verbose               report more progress while running
  -l, --live                  stream the agent's output as it works (switches to JSON output)
  -t, --timeout MIN           minutes one agent call may take, 1 to 120 (default: 15)
      --reset-circuit         close the circuit breaker, reset the session, and exit
      --circuit-status        show the circuit breaker state and exit
      --auto-reset-circuit    at start-up, close an open circuit breaker without waiting
                              for its cooldown
      --reset-session         forget the agent session and exit
      --version               print the version and exit

Agent options:
      --output-format FORMAT  agent output format, json or text (default: json);
                              --live always uses json
      --allowed-tools TOOLS   comma-separated tool allowlist, e.g. 'Read,Write,Bash(git *)';
                              Claude Code only, the other drivers ignore it
      --no-continue           start a fresh agent session on every loop
      --session-expiry HOURS  resume a session only if it was used in the last HOURS
                              hours (default: 24)
      --driver NAME           agent CLI: claude-code, codex, cursor, copilot, opencode
                              or command (default: claude-code)
      --fallback-driver NAME  agent CLI to go on with while the main one is at its usage
                              limit, back to the main one after its reset (default: none)

Loop control:
      --delay DURATION        wait between loops (default: 5s)
      --max-loops N           stop after N loops (default: 0, no limit)
      --done-pattern REGEX    stop when the agent's output matches REGEX
      --inactivity-timeout DURATION
                              stop an agent call that prints nothing for this long
      --max-output-mb MB      stop an agent call whose output passes MB megabytes; its
                              log keeps the head and the tail (default: 256, 0 = no limit)
      --log-keep N            keep the logs of the last N agent calls (default: 200, 0 = all)
      --log-max-mb MB         rotate ralph.log, events.jsonl, metrics.jsonl past MB
                              megabytes to NAME.1 … NAME.5 (default: 50, 0 = never)
      --retry-max-delay DURATION
                              longest wait between tries while the provider is
                              down (overloaded, 5xx, unreachable) (default: 30m)
      --outage-max DURATION   stop once such an outage has lasted this long
                              (default: 6h, 0 = no limit; exit 10)
      --max-cost USD          stop once the agent reports this much spend
      --max-tokens N          stop once the agent reports this many tokens
      --events FILE           append one JSON object per event to FILE ('-' = stdout)

Notifications (docs/NOTIFY.md):
      --notify-on EVENTS      the events to send, comma-separated (default:
                              run_finished,breaker_opened,usage_limited,guard_gave_up)
      --notify-command CMD    run CMD for each event, the event's JSON on stdin
      --notify-webhook URL    POST each event as JSON with a text field (Slack, Mattermost)
      --notify-desktop        show a desktop notice for each event

Commands:
      --init                  set up .ralph/ here (PROMPT.md, @fix_plan.md, @AGENT.md,
                              .ralphrc, specs/) where missing, and exit
      --pause                 ask the running loop to pause, and exit
      --resume                let a paused loop go on, and exit
      --report                summarise the runs so far and exit
      --dry-run               run the start-up checks, show the next agent call
                              (argv, prompt, context, limits) and exit; calls
                              no agent and writes nothing
      --json                  with --report, --status or --dry-run: print JSON
      --run ID                with --report: that run alone
      --clean                 remove the logs of old agent calls (beyond LOG_KEEP) and
                              the rotated logs (NAME.1 … NAME.5); print what was freed
      --keep N                with --clean: keep the logs of the last N calls instead
      --analyze FILE          analyse a saved agent output file and exit
                              (--driver tells which agent wrote it)
      --doctor                check this project is ready to run unattended, and exit
      --notify-test           with --doctor: send a test notification to each notifier

Web dashboard (docs/DASHBOARD.md):
      --dashboard [ADDR]      run the loop and serve its dashboard on ADDR
                              (default: SERVE_ADDR, 127.0.0.1:8765)
      --serve [ADDR]          serve the dashboard of this project's loop, running or
                              finished, without running it
      --projects DIR...       with --serve: one row per project (or per worktree of a
                              folder of worktrees), each linked to its dashboard

DURATION is 30s, 5m, 6h, 1d or a plain number of seconds.
Each option has a .ralphrc key and an environment variable as well (docs/CONFIG.md).
Precedence: option > environment > .ralph/.ralphrc > built-in default.

Files it keeps in .ralph/:
  logs/                  one log per agent call, plus ralph.log
  logs/metrics.jsonl     one JSON line per loop
  status.json            current state, read by bmalph and --status
  .ralph_session         session lifecycle; .ralph_session_history keeps the last 50 changes
  .call_count, .last_reset  calls made in the current hour

Typical start:
  cd my-project
  bmalph init               # adds .ralph/ to the project
  bmalph implement          # writes the task files
  ralph_loop --monitor

Examples:
  bmalph run                           # let bmalph start the loop
  ralph_loop --calls 50 --prompt my_prompt.md
  ralph_loop --live --verbose          # watch the agent work, with more detail
  ralph_loop --monitor --timeout 30    # tmux view, 30 minutes per call
  ralph_loop --output-format text      # older plain-text output
  ralph_loop --no-continue             # no session carried between loops
  ralph_loop --session-expiry 48       # sessions stay usable for two days
  ralph_loop --max-loops 10 --delay 30s
  ralph_loop --driver codex --analyze .ralph/logs/claude_output_2026-01-01_10-00-00-123_loop1.log
`

// Usage writes the --help text to w.
func Usage(w io.Writer) {
	_, _ = io.WriteString(w, usageText)
}
