package app

import (
	"runtime/debug"
	"strings"
)

// Version is the version of this binary. `make build` sets it with
// -ldflags "-X github.com/trawlhq/trawl/app.Version=..."; otherwise it is
// read from the build information the Go toolchain embeds (the module
// version for `go install ...@v1.2.3`, the VCS revision for a build in a
// checkout), and "dev" when there is none.
var Version = ""

func init() {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		info = nil
	}
	Version = versionOf(Version, info)
}

// versionOf is the linker-set version when there is one, else the module
// version and VCS state from info: "v1.2.3", or
// "v0.0.0-20261123133407-55d3e55abcde+dirty (revision 55d3e55abcde, modified)".
func versionOf(linked string, info *debug.BuildInfo) string {
	if linked != "" {
		return linked
	}
	if info == nil {
		return "dev"
	}
	version := info.Main.Version
	if version == "(devel)" {
		version = ""
	}
	var revision string
	var modified bool
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	var vcs []string
	if revision != "" {
		vcs = append(vcs, "revision "+revision[:min(12, len(revision))])
	}
	if modified {
		vcs = append(vcs, "modified")
	}
	switch {
	case version == "" && len(vcs) == 0:
		return "dev"
	case version == "":
		return "dev (" + strings.Join(vcs, ", ") + ")"
	case len(vcs) == 0:
		return version
	}
	return version + " (" + strings.Join(vcs, ", ") + ")"
}
