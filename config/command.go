package config

import (
	"errors"
	"fmt"
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
	var bad string
	for _, w := range call.Args {
		if lit, ok := w.Parts[0].(*syntax.Lit); ok && strings.HasPrefix(lit.Value, "~") && len(lit.Value) > 1 && lit.Value[1] != '/' {
			return nil, errors.New("~user is not allowed (write the path)")
		}
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
				return false
			case *syntax.CmdSubst:
				bad = "command substitution is not allowed"
			default:
				bad = fmt.Sprintf("%T is not allowed", n)
			}
			return false
		})
		if bad != "" {
			return nil, errors.New(bad)
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

// simpleParam reports whether p is $NAME or ${NAME} with a plain name.
func simpleParam(p *syntax.ParamExp) bool {
	if p.Param == nil || p.Excl || p.Length || p.Width || p.IsSet || p.Flags != nil ||
		p.NestedParam != nil || p.Index != nil || p.Slice != nil || p.Repl != nil ||
		p.Names != 0 || p.Exp != nil || p.Modifiers != nil {
		return false
	}
	name := p.Param.Value
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
