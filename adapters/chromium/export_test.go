package chromium

import "errors"

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
