package config

import (
	"errors"
	"fmt"
	"runtime"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// splitCommand turns AGENT_COMMAND into argv the way a POSIX shell splits a
// simple command: blanks separate words, quotes group, backslashes escape,
// and $NAME / ${NAME} are taken from the environment. Nothing is executed:
// command and process substitution, arithmetic, redirections, pipes, lists,
// assignments and parameter operators are rejected. No globbing.
func splitCommand(s string, lookupEnv func(string) (string, bool)) ([]string, error) {
	return splitCommandOn(runtime.GOOS, s, lookupEnv)
}

// splitCommandOn is splitCommand as it works on the system goos. On
// Windows a backslash outside quotes is a path separator
// (C:\tools\agent.exe), not an escape, unless it escapes a blank, a quote,
// a $, a backtick or another backslash; and ~ is %USERPROFILE% when HOME
// is not set.
func splitCommandOn(goos, s string, lookupEnv func(string) (string, bool)) ([]string, error) {
	if goos == "windows" {
		s = keepBackslashes(s)
		lookupEnv = userProfileHome(lookupEnv)
	}
	call, err := simpleCall(s)
	if err != nil {
		return nil, err
	}
	for _, w := range call.Args {
		if err := checkWord(w); err != nil {
			return nil, err
		}
	}
	env := expand.FuncEnviron(func(name string) string {
		if lookupEnv == nil {
			return ""
		}
		v, _ := lookupEnv(name)
		return v
	})
	argv, err := expand.Fields(&expand.Config{Env: env}, call.Args...)
	if err != nil {
		return nil, err
	}
	if len(argv) == 0 || argv[0] == "" {
		return nil, errors.New("the command name is empty")
	}
	return argv, nil
}

// keepBackslashes doubles each backslash outside quotes that does not
// escape a blank, a quote, a $, a backtick or a backslash, so that the
// POSIX split keeps it.
func keepBackslashes(s string) string {
	var b strings.Builder
	var quote rune // the open quote, 0 outside quotes
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else if r == '\\' && quote == '"' && i+1 < len(rs) {
				b.WriteRune(r) // an escape inside double quotes stays one
				i++
				r = rs[i]
			}
		case r == '"' || r == '\'':
			quote = r
		case r == '\\':
			if i+1 < len(rs) && strings.ContainsRune(" \t\"'$`\\", rs[i+1]) {
				b.WriteRune(r)
				i++
				r = rs[i]
			} else {
				b.WriteRune('\\')
			}
		}
		b.WriteRune(r)
	}
	return b.String()
}

// userProfileHome answers HOME with USERPROFILE when HOME is not set.
func userProfileHome(lookupEnv func(string) (string, bool)) func(string) (string, bool) {
	return func(name string) (string, bool) {
		var v string
		var ok bool
		if lookupEnv != nil {
			v, ok = lookupEnv(name)
		}
		if name == "HOME" && (!ok || v == "") && lookupEnv != nil {
			return lookupEnv("USERPROFILE")
		}
		return v, ok
	}
}

// simpleCall parses s as one plain command with arguments: no lists,
// pipes, redirections, assignments, negation or background.
func simpleCall(s string) (*syntax.CallExpr, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangPOSIX)).Parse(strings.NewReader(s), "")
	if err != nil {
		return nil, fmt.Errorf("not a simple command line: %s", shortSyntaxError(err))
	}
	if len(f.Stmts) != 1 {
		return nil, errors.New("expected a single command (no ';', '&&', '|' or newlines)")
	}
	st := f.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || st.Negated || st.Background || st.Coprocess || len(st.Redirs) > 0 || len(call.Assigns) > 0 || len(call.Args) == 0 {
		return nil, errors.New("expected a plain command with arguments (no redirections, pipes, assignments or '&')")
	}
	return call, nil
}

// checkWord rejects a word that would need more than quoting and plain
// $NAME / ${NAME} expansion: ~user, command substitution, arithmetic,
// parameter operators and the like.
func checkWord(w *syntax.Word) error {
	if lit, ok := w.Parts[0].(*syntax.Lit); ok && strings.HasPrefix(lit.Value, "~") && len(lit.Value) > 1 && lit.Value[1] != '/' {
		return errors.New("~user is not allowed (write the path)")
	}
	var bad string
	syntax.Walk(w, func(n syntax.Node) bool {
		if n == nil || bad != "" {
			return false
		}
		switch n := n.(type) {
		case *syntax.Word, *syntax.Lit, *syntax.SglQuoted, *syntax.DblQuoted:
			return true
		case *syntax.ParamExp:
			if !simpleParam(n) {
				bad = "only $NAME and ${NAME} expansions are allowed"
			}
		case *syntax.CmdSubst:
			bad = "command substitution is not allowed"
		default:
			bad = fmt.Sprintf("%T is not allowed", n)
		}
		return false
	})
	if bad != "" {
		return errors.New(bad)
	}
	return nil
}

// simpleParam reports whether p is $NAME or ${NAME} with a plain name.
func simpleParam(p *syntax.ParamExp) bool {
	return p.Param != nil && !hasOperator(p) && validName(p.Param.Value)
}

// hasOperator reports whether p does more than name a parameter: a
// length, an indirection, a default, a substring, a replacement, ...
func hasOperator(p *syntax.ParamExp) bool {
	return p.Excl || p.Length || p.Width || p.IsSet || p.Flags != nil ||
		p.NestedParam != nil || p.Index != nil || p.Slice != nil || p.Repl != nil ||
		p.Names != 0 || p.Exp != nil || p.Modifiers != nil
}

// validName reports whether name is a shell variable name: a letter or
// '_', then letters, digits and '_'.
func validName(name string) bool {
	if name == "" {
		return false
	}
	for i, r := range name {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

func shortSyntaxError(err error) string {
	var pe syntax.ParseError
	if errors.As(err, &pe) {
		return pe.Text
	}
	return err.Error()
}
