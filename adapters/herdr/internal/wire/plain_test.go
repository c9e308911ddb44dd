package wire

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/internal/testenv"
)

// The pieces plain params are generated from: every key the two params
// types know, the same keys in another case or escaped (encoding/json folds
// case and unescapes; Herdr's serde matches exactly), unknown keys, and
// values of every JSON kind, with the numbers a seq may be written as.
var (
	plainGenKeys = []string{
		"pane_id", "source", "agent", "state", "message", "seq", "agent_session_id", "agent_session_path", "resume_argv",
		"Pane_ID", "SEQ", "State", `pane\u005fid`, `se\u0071`, "x", "target", "",
	}
	plainGenValues = []string{
		`"w1:p1"`, `"s"`, `"a"`, `""`, `"working"`, `"blocked"`, `"idle"`, `"done"`, `"Working"`,
		`"é→🙂"`, `"\u0041"`, `"a\"b"`, `"<b>&"`, "\"\xff\"", `"\ud800"`, "\"ls\u2028\"",
		`0`, `7`, `-0`, `-1`, `1e3`, `1E0`, `1.0`, `1.5`, `18446744073709551615`, `18446744073709551616`,
		`99999999999999999999999`, `0.0`, `-0.0`,
		`null`, `true`, `false`, `{}`, `{"pane_id":"x"}`, `[]`, `["a","b"]`, `[1]`,
	}
)

// genPlainParams returns a params object drawn from the pieces above: most
// often pane_id, source and agent, maybe state, then a few more members
// (known keys or not, twice or not), in a shuffled order, now and then with
// a space, a trailing character or a missing brace.
func genPlainParams(r *rand.Rand) string {
	value := func() string { return plainGenValues[r.IntN(len(plainGenValues))] }
	str := func() string { return plainGenValues[r.IntN(10)] } // the plain strings
	var members []string
	if r.IntN(4) > 0 {
		members = append(members, `"pane_id":`+str(), `"source":`+str(), `"agent":`+str())
		if r.IntN(3) > 0 {
			members = append(members, `"state":`+str())
		}
	}
	for range r.IntN(4) {
		members = append(members, fmt.Sprintf("%q:%s", plainGenKeys[r.IntN(len(plainGenKeys))], value()))
	}
	r.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
	s := "{" + strings.Join(members, ",") + "}"
	s = strings.ReplaceAll(s, `\\u`, `\u`) // the escaped keys, once through %q
	switch r.IntN(20) {
	case 0:
		s = s[:len(s)-1]
	case 1:
		s += "x"
	case 2:
		s = strings.Replace(s, ":", ": ", 1)
	}
	return s
}

// checkPlainAgrees: when decodePlain reads params as a T, encoding/json's
// path (the same params with a space, which decodePlain never reads)
// accepts them and reads the same value.
func checkPlainAgrees[T any, P interface {
	*T
	decodePlain([]byte) bool
}](t *testing.T, params string) {
	t.Helper()
	var got T
	if !P(&got).decodePlain([]byte(params)) {
		return
	}
	var want T
	if err := json.Unmarshal([]byte("{ "+params[1:]), &want); err != nil {
		t.Fatalf("%s: read without a decoder as %+v; the decoder refuses it: %v", params, got, err)
	}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Fatalf("%s: read without a decoder (-got +decoder):\n%s", params, diff)
	}
}

// TestPlainParamsAgreeWithTheDecoder generates params objects from the
// pieces where a reader by hand goes wrong (duplicate keys, escapes, case,
// numbers such as 1e3 and -0, huge numbers, nested values) and holds every
// one that decodePlain reads to the decoder's reading. 2,000 objects;
// PANESTATE_SOAK=1 makes it 2,000,000.
func TestPlainParamsAgreeWithTheDecoder(t *testing.T) {
	n := 2000
	if os.Getenv(testenv.SoakEnv) == "1" {
		n = 2_000_000
	}
	r := rand.New(rand.NewPCG(20, 20))
	read := 0
	for range n {
		params := genPlainParams(r)
		checkPlainAgrees[ReportAgentParams](t, params)
		checkPlainAgrees[ReleaseAgentParams](t, params)
		if new(ReportAgentParams).decodePlain([]byte(params)) || new(ReleaseAgentParams).decodePlain([]byte(params)) {
			read++
		}
	}
	t.Logf("%d of %d read without a decoder", read, n)
	if read == 0 {
		t.Errorf("none of %d generated params was plain: the test compared nothing", n)
	}
}

// FuzzPlainParams: decodePlain agrees with encoding/json's path on any
// input (go test -fuzz FuzzPlainParams for a long run), and the ok answer
// written by hand with encoding/json's for any id.
func FuzzPlainParams(f *testing.F) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		f.Add(genPlainParams(r))
	}
	f.Add(`{"pane_id":"w1:p1","source":"s","agent":"a","state":"idle","seq":-0}`)
	f.Add(`{"pane_id":"w1:p1","source":"s","agent":"a","seq":1e3}`)
	f.Fuzz(func(t *testing.T, params string) {
		if strings.HasPrefix(params, "{") {
			checkPlainAgrees[ReportAgentParams](t, params)
			checkPlainAgrees[ReleaseAgentParams](t, params)
		}
		if got, ok := OK(params).appendOKLine(nil); ok {
			want, err := marshal(OK(params))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want)+"\n" {
				t.Fatalf("id %q: line %q, want %q", params, got, string(want)+"\n")
			}
		}
	})
}
