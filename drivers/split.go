package drivers

import (
	"errors"
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// SplitCommand splits an AGENT_COMMAND value into words the way a shell
// would (quotes, backslash escapes, line continuations), without running or
// expanding anything. The value must be one simple command: variables,
// command/arithmetic/process substitution, globs, braces, a leading ~,
// VAR=value prefixes, redirections, pipes, lists and background jobs are
// rejected with an error naming the position.
func SplitCommand(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errNoCommand
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(s), "")
	if err != nil {
		return nil, fmt.Errorf("parse AGENT_COMMAND: %w", err)
	}
	if len(f.Stmts) != 1 {
		if len(f.Stmts) == 0 {
			return nil, errNoCommand
		}
		return nil, fmt.Errorf("parse AGENT_COMMAND: %s: only one command is allowed, found %d (put several in a script and run that)", f.Stmts[1].Pos(), len(f.Stmts))
	}
	st := f.Stmts[0]
	if err := checkStmt(st); err != nil {
		return nil, fmt.Errorf("parse AGENT_COMMAND: %w", err)
	}
	call := st.Cmd.(*syntax.CallExpr)
	words := make([]string, 0, len(call.Args))
	for _, w := range call.Args {
		if err := checkWord(w); err != nil {
			return nil, fmt.Errorf("parse AGENT_COMMAND: %w", err)
		}
		// Only quote removal is left to do: checkWord has refused every
		// expansion, so one word gives exactly one field.
		fields, err := expand.Fields(nil, w)
		if err != nil || len(fields) != 1 {
			return nil, fmt.Errorf("parse AGENT_COMMAND: %s: unsupported word", w.Pos())
		}
		words = append(words, fields[0])
	}
	if len(words) == 0 || words[0] == "" {
		return nil, errNoCommand
	}
	return words, nil
}

func checkStmt(st *syntax.Stmt) error {
	switch {
	case len(st.Redirs) > 0:
		return fmt.Errorf("%s: redirections are not allowed (the loop captures the output itself)", st.Redirs[0].Pos())
	case st.Background || st.Coprocess || st.Disown:
		return fmt.Errorf("%s: background jobs are not allowed", st.Pos())
	case st.Negated:
		return fmt.Errorf("%s: \"!\" is not allowed", st.Pos())
	}
	switch cmd := st.Cmd.(type) {
	case *syntax.CallExpr:
		if len(cmd.Assigns) > 0 {
			return fmt.Errorf("%s: VAR=value prefixes are not allowed (set the variable in the environment instead)", cmd.Assigns[0].Pos())
		}
		return nil
	case *syntax.BinaryCmd:
		return fmt.Errorf("%s: pipes and && / || lists are not allowed (put them in a script and run that)", cmd.OpPos)
	case nil:
		return errNoCommand
	default:
		return fmt.Errorf("%s: only a simple command is allowed", cmd.Pos())
	}
}

var errUnquoted = errors.New("glob, brace and ~ characters are not expanded (quote them)")

func checkWord(w *syntax.Word) error {
	for i, part := range w.Parts {
		if err := checkPart(part, i == 0); err != nil {
			return err
		}
	}
	return nil
}

func checkPart(part syntax.WordPart, first bool) error {
	switch p := part.(type) {
	case *syntax.Lit:
		if first && strings.HasPrefix(p.Value, "~") {
			return fmt.Errorf("%s: %w", p.Pos(), errUnquoted)
		}
		for i := 0; i < len(p.Value); i++ {
			switch p.Value[i] {
			case '\\':
				i++ // escaped character
			case '*', '?', '[', '{', '}':
				return fmt.Errorf("%s: %w", p.Pos(), errUnquoted)
			}
		}
		return nil
	case *syntax.SglQuoted:
		return nil
	case *syntax.DblQuoted:
		for _, inner := range p.Parts {
			if _, ok := inner.(*syntax.Lit); !ok {
				return checkPart(inner, false)
			}
		}
		return nil
	case *syntax.ParamExp:
		return fmt.Errorf("%s: variables are not expanded (write the value itself, or quote the $ with '...')", p.Pos())
	case *syntax.CmdSubst:
		return fmt.Errorf("%s: command substitution is not allowed", p.Pos())
	case *syntax.ArithmExp:
		return fmt.Errorf("%s: arithmetic expansion is not allowed", p.Pos())
	case *syntax.ProcSubst:
		return fmt.Errorf("%s: process substitution is not allowed", p.Pos())
	case *syntax.ExtGlob:
		return fmt.Errorf("%s: %w", p.Pos(), errUnquoted)
	default:
		return fmt.Errorf("%s: unsupported shell syntax", part.Pos())
	}
}
