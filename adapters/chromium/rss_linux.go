package chromium

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// treeRSS sums the resident memory of pid and its descendants (Chromium's
// renderer, GPU and utility processes are children of the browser).
func treeRSS(pid int) int64 {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	parent := map[int]int{}
	rss := map[int]int64{}
	page := int64(os.Getpagesize())
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 22 {
			continue
		}
		pp, _ := strconv.Atoi(f[1])
		pages, _ := strconv.ParseInt(f[21], 10, 64)
		parent[p], rss[p] = pp, pages*page
	}
	var total int64
	for p := range rss {
		for q := p; q > 1; q = parent[q] {
			if q == pid {
				total += rss[p]
				break
			}
		}
	}
	return total
}

// proc is one process of a browser's tree.
type proc struct {
	pid      int
	rss      int64
	own      int64 // resident and not shared with a file or another process
	renderer bool  // renders pages (Chromium's --type=renderer)
}

// browserProcs lists root and its descendants with their resident memory,
// following /proc/<pid>/task/<tid>/children from the processes that start
// others (the browser and its zygotes), so only the tree is read.
func browserProcs(root int) []proc {
	var out []proc
	page := int64(os.Getpagesize())
	seen := map[int]bool{}
	queue := []int{root}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		if seen[pid] {
			continue
		}
		seen[pid] = true
		dir := "/proc/" + strconv.Itoa(pid)
		statm, err := os.ReadFile(dir + "/statm")
		if err != nil {
			continue
		}
		f := strings.Fields(string(statm))
		if len(f) < 3 {
			continue
		}
		pages, _ := strconv.ParseInt(f[1], 10, 64)
		shared, _ := strconv.ParseInt(f[2], 10, 64)
		cmd, _ := os.ReadFile(dir + "/cmdline")
		typ := processType(cmd)
		out = append(out, proc{pid: pid, rss: pages * page, own: (pages - shared) * page, renderer: typ == "renderer"})
		if typ != "" && typ != "zygote" {
			continue // renderers, GPU and utility processes start none
		}
		tasks, _ := os.ReadDir(dir + "/task")
		for _, t := range tasks {
			b, _ := os.ReadFile(dir + "/task/" + t.Name() + "/children")
			for _, c := range strings.Fields(string(b)) {
				if n, err := strconv.Atoi(c); err == nil {
					queue = append(queue, n)
				}
			}
		}
	}
	return out
}

// processType is the value of Chromium's --type= switch in a command line
// (NUL-separated, or one string with spaces once Chromium rewrote its
// process title); "" for the browser process itself.
func processType(cmdline []byte) string {
	for _, arg := range strings.FieldsFunc(string(cmdline), func(r rune) bool { return r == 0 || r == ' ' }) {
		if t, ok := strings.CutPrefix(arg, "--type="); ok {
			return t
		}
	}
	return ""
}

// stopProcess kills one process of the browser's tree.
func stopProcess(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }
