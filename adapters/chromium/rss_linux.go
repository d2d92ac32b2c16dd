package chromium

import (
	"os"
	"strconv"
	"strings"
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
