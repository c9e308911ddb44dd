package session

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWithResumeRoundTripsAndStaysComparable(t *testing.T) {
	tests := []struct {
		name  string
		words []string
	}{
		{"none", nil},
		{"one empty word", []string{""}},
		{"several", []string{"mychat", "--resume", "abc def"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := Identity{ID: "abc"}.WithResume(tt.words...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(a.Resume(), tt.words); diff != "" {
				t.Errorf("Resume() (-got +want):\n%s", diff)
			}
			b, err := Identity{ID: "abc"}.WithResume(tt.words...)
			if err != nil {
				t.Fatal(err)
			}
			if a != b || !a.Equal(b) || cmp.Diff(a, b) != "" {
				t.Error("two identities with the same words differ")
			}
			if (a == Identity{ID: "abc"}) != (len(tt.words) == 0) {
				t.Errorf("%q: == Identity without a resume command is %t", tt.words, a == Identity{ID: "abc"})
			}
		})
	}
}

func TestWithResumeRefusesNULAndKeepsTheIdentity(t *testing.T) {
	id, err := Identity{ID: "abc"}.WithResume("mychat")
	if err != nil {
		t.Fatal(err)
	}
	got, err := id.WithResume("ok", "bad\x00word")
	if err == nil {
		t.Fatal("WithResume accepted a NUL byte")
	}
	if got != id {
		t.Errorf("WithResume with an error returned %+v, want the identity unchanged", got)
	}
	if other, _ := id.WithResume("yourchat"); other.Equal(id) || cmp.Diff(other, id) == "" {
		t.Error("identities with different resume commands compare equal")
	}
}

func TestIdentityMarshalJSON(t *testing.T) {
	full, err := Identity{ID: "abc", Path: "/s/abc.jsonl"}.WithResume("mychat", "--resume", "abc")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		id   Identity
		want string
	}{
		{"zero", Identity{}, `{}`},
		{"full", full, `{"id":"abc","path":"/s/abc.jsonl","resume":["mychat","--resume","abc"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.id)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(got), tt.want); diff != "" {
				t.Errorf("JSON (-got +want):\n%s", diff)
			}
		})
	}
}
