//go:build !linux

package chromium

func treeRSS(int) int64 { return 0 }

type proc struct {
	pid      int
	rss      int64
	own      int64
	renderer bool
}

// browserProcs reads nothing off Linux: the memory watch is Linux only.
func browserProcs(int) []proc { return nil }

func stopProcess(int) error { return nil }
