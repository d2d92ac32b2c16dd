package proctest

import (
	"os"
	"os/exec"
	"runtime"
	"slices"
	"testing"
)

func TestChildren(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep program:", err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	if got := Children(os.Getpid()); !slices.Contains(got, cmd.Process.Pid) {
		t.Fatalf("children %v, want %d among them", got, cmd.Process.Pid)
	}
	if got := Children(cmd.Process.Pid); len(got) != 0 {
		t.Fatalf("children of sleep: %v", got)
	}
}
