package app

import (
	"bytes"
	"io"
	"runtime/debug"
	"testing"
)

func TestVersionOf(t *testing.T) {
	vcs := func(main string, settings ...string) *debug.BuildInfo {
		info := &debug.BuildInfo{Main: debug.Module{Path: "github.com/trawlhq/trawl", Version: main}}
		for i := 0; i+1 < len(settings); i += 2 {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return info
	}
	const rev = "55d3e55abcdef0123456789abcdef0123456789a"
	for _, c := range []struct {
		linked string
		info   *debug.BuildInfo
		want   string
	}{
		{"v1.4.0", vcs("v0.0.0-x", "vcs.revision", rev), "v1.4.0"},
		{"", nil, "dev"},
		{"", vcs("(devel)"), "dev"},
		{"", vcs("v1.2.3"), "v1.2.3"},
		{"", vcs("(devel)", "vcs", "git", "vcs.revision", rev, "vcs.modified", "false"), "dev (revision 55d3e55abcde)"},
		{"", vcs("(devel)", "vcs.revision", rev, "vcs.modified", "true"), "dev (revision 55d3e55abcde, modified)"},
		{"", vcs("v0.0.0-20261123133407-55d3e55abcde+dirty", "vcs.revision", rev, "vcs.modified", "true"),
			"v0.0.0-20261123133407-55d3e55abcde+dirty (revision 55d3e55abcde, modified)"},
	} {
		if got := versionOf(c.linked, c.info); got != c.want {
			t.Errorf("versionOf(%q, %+v) = %q, want %q", c.linked, c.info, got, c.want)
		}
	}
}

// TestVersionCommandUsesBuildInfo: without a linker flag (as in this test
// binary) the version command prints what the build information says.
func TestVersionCommandUsesBuildInfo(t *testing.T) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		t.Skip("no build information in this binary")
	}
	want := versionOf("", info)
	for _, args := range [][]string{{"version"}, {"--version"}} {
		var out bytes.Buffer
		code := CLI{Stdout: &out, Stderr: io.Discard, Getenv: func(string) string { return "" }}.Main(args)
		if code != 0 || out.String() != "trawl "+want+"\n" {
			t.Fatalf("trawl %s = %d %q, want %q", args[0], code, out.String(), "trawl "+want)
		}
	}
}
