package probe_test

import (
	"strings"
	"testing"

	"github.com/panestate/panestate/adapters/progstatus/probe"
)

func TestResultEnv(t *testing.T) {
	for _, tt := range []struct {
		a    probe.Answer
		want string
	}{
		{probe.Supported, "PANESTATE_PROGSTATUS=1"},
		{probe.Unsupported, "PANESTATE_PROGSTATUS=0"},
		{probe.NoAnswer, "PANESTATE_PROGSTATUS=0"},
	} {
		t.Run(tt.a.String(), func(t *testing.T) {
			if got := (probe.Result{Answer: tt.a}).Env(); got != tt.want {
				t.Errorf("Env() = %q; want %q", got, tt.want)
			}
		})
	}
}

func TestQueryIsTheProtocolsThenDA1(t *testing.T) {
	if !strings.HasPrefix(probe.Query, "\x1b]7501;?\x1b\\") || !strings.HasSuffix(probe.Query, "\x1b[c") {
		t.Errorf("Query = %q", probe.Query)
	}
}
