//go:build !linux

package chromium

func treeRSS(int) int64 { return 0 }
