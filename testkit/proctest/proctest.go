// Package proctest reads a process's children from /proc (Linux), for the
// tests and figures that look at the PDF workers below a node.
package proctest

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Children are the processes pid started and that still run; none where
// /proc does not list them. A process's children are listed by the
// thread that started each, so every thread's list is read.
func Children(pid int) []int {
	var out []int
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	for _, task := range tasks {
		kids, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, task.Name()))
		for _, f := range strings.Fields(string(kids)) {
			if c, err := strconv.Atoi(f); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}
