package chromium

import (
	"errors"
	"os"
	"strconv"
	"strings"
)

// KillBrowserForTest kills the local browser process, as a crash would.
func (r *Renderer) KillBrowserForTest() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cur == nil {
		return errors.New("no browser")
	}
	pid := r.cur.pid()
	if pid == 0 {
		return errors.New("no local browser process")
	}
	c := r.cur
	p := chromedpProcess(c)
	return p.Kill()
}

// TreeRSS sums the resident memory of pid and its descendants.
var TreeRSS = treeRSS

// TreePSS sums the proportional resident memory (/proc/<pid>/smaps_rollup)
// of pid and its descendants: what they hold together, each shared page
// counted once, where a sum of RSS counts Chromium's code once a process.
func TreePSS(pid int) int64 {
	var total int64
	for _, p := range browserProcs(pid) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(p.pid) + "/smaps_rollup")
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "Pss:"); ok {
				kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
				total += kb << 10
				break
			}
		}
	}
	return total
}
