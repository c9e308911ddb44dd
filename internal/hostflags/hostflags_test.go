package hostflags_test

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/internal/hostflags"
	"github.com/panestate/panestate/internal/testenv"
	"github.com/panestate/panestate/session"
)

func TestMain(m *testing.M) {
	testenv.ClearHerdr()
	os.Exit(m.Run())
}

func TestHost(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		want    session.Host
		wantErr string
	}{
		{name: "defaults", want: session.Host{Interactive: true, Root: true}},
		{
			name: "everything",
			args: []string{"--mode", "rpc", "--no-ui", "--role", "workflow-stage", "--loaded-extension", "/a", "--loaded-extension", "/b"},
			want: session.Host{LoadedExtensions: []string{"/a", "/b"}},
		},
		{name: "print mode", args: []string{"--mode", "print"}, want: session.Host{Root: true}},
		{name: "no ui", args: []string{"--no-ui"}, want: session.Host{Root: true}},
		{name: "subagent", args: []string{"--role", "subagent"}, want: session.Host{Interactive: true}},
		{name: "bad mode", args: []string{"--mode", "gui"}, wantErr: `hostflags: unknown mode "gui" (want tui, print, json or rpc)`},
		{name: "bad role", args: []string{"--role", "boss"}, wantErr: `hostflags: unknown role "boss" (want root, subagent or workflow-stage)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			f := hostflags.Register(fs)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			got, err := f.Host()
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("Host() error = %v; want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(got, tc.want); diff != "" {
				t.Errorf("Host() (-got +want):\n%s", diff)
			}
		})
	}
}

func TestOptions(t *testing.T) {
	project := t.TempDir()
	for _, tc := range []struct {
		name      string
		args      []string
		wantTrust bool
	}{
		{name: "untrusted by default", args: []string{"--project", project}},
		{name: "trusted with the flag", args: []string{"--project", project, "--trust-project"}, wantTrust: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			f := hostflags.Register(fs)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			home := filepath.Join(t.TempDir(), "home")
			opts, err := f.Options([]string{"HOME=" + home, "USERPROFILE=" + home}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if opts.App != hostflags.DefaultApp || opts.Settings.Home != home || opts.Settings.ProjectRoot != project {
				t.Errorf("Options() = app %q, home %q, project %q; want %q, %q, %q",
					opts.App, opts.Settings.Home, opts.Settings.ProjectRoot, hostflags.DefaultApp, home, project)
			}
			if trusted, err := opts.Settings.Trust(project); trusted != tc.wantTrust || err != nil {
				t.Errorf("Trust(project) = %v, %v; want %v, nil", trusted, err, tc.wantTrust)
			}
		})
	}
}
