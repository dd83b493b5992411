package dashboard

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestAnswerIsAControl: the answer endpoint takes a POST with the token,
// from the dashboard's own origin, with SERVE_CONTROL on, as the controls
// do; the body is JSON or a form; the project's refusal is a 409.
func TestAnswerIsAControl(t *testing.T) {
	var got []string
	answer := func(text string) (string, error) {
		if text == "late" {
			return "", errors.New("no question waits for an answer")
		}
		got = append(got, text)
		return "Postgres or SQLite?", nil
	}
	newServer := func(opts Options) *Server {
		return New([]Project{{Name: "demo", Source: &fakeSource{}, Control: (&controls{}).do, Answer: answer}}, opts)
	}
	post := func(s *Server, body, ctype string, hdr map[string]string) *httptest.ResponseRecorder {
		r := request("POST", "/api/p/0/answer", here, host, hdr)
		r.Body = httptest.NewRequest("POST", "/", strings.NewReader(body)).Body
		r.Header.Set("Content-Type", ctype)
		return do(s, r)
	}
	json := "application/json"
	tok := map[string]string{"X-Ralph-Token": token}
	s := newServer(Options{Token: token, Controls: true})
	for _, tc := range []struct {
		name  string
		s     *Server
		body  string
		ctype string
		hdr   map[string]string
		code  int
	}{
		{"no token", s, `{"answer":"a"}`, json, nil, 401},
		{"wrong token", s, `{"answer":"a"}`, json, map[string]string{"X-Ralph-Token": "wrong-token-0123456789"}, 401},
		{"another origin", s, `{"answer":"a"}`, json, map[string]string{"X-Ralph-Token": token, "Origin": "http://evil.example"}, 403},
		{"controls off", newServer(Options{Token: token}), `{"answer":"a"}`, json, tok, 403},
		{"bad json", s, `{"answer":`, json, tok, 400},
		{"refused", s, `{"answer":"late"}`, json, tok, 409},
		{"json", s, `{"answer":"SQLite"}`, json, tok, 200},
		{"form", s, `answer=one+file`, "application/x-www-form-urlencoded", tok, 200},
	} {
		w := post(tc.s, tc.body, tc.ctype, tc.hdr)
		if w.Code != tc.code {
			t.Errorf("%s: %d %q, want %d", tc.name, w.Code, w.Body.String(), tc.code)
		}
		if tc.code == 200 && !strings.Contains(w.Body.String(), `{"answered":"Postgres or SQLite?"}`) {
			t.Errorf("%s: body %q", tc.name, w.Body.String())
		}
	}
	if strings.Join(got, ",") != "SQLite,one file" {
		t.Errorf("answers given: %q", got)
	}
	if c := do(s, request("GET", "/api/p/0/answer", here, host, tok)).Code; c != 405 {
		t.Errorf("GET: %d, want 405", c)
	}
	big := post(s, `{"answer":"`+strings.Repeat("x", answerMax)+`"}`, json, tok)
	if big.Code != 400 {
		t.Errorf("a body past %d bytes: %d", answerMax, big.Code)
	}
}
