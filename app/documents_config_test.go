package app

import (
	"strings"
	"testing"
	"time"
)

func TestDocumentConfig(t *testing.T) {
	d := DefaultConfig()
	if d.DocumentMaxBytes != 50<<20 || d.DocumentMaxPages != 500 || d.DocumentTimeout != 30*time.Second || d.DocumentWorkers != 2 || d.DocumentMemoryBytes != 256<<20 {
		t.Fatalf("defaults %+v", d)
	}
	env := map[string]string{"TRAWL_DOCUMENT_MAX_BYTES": "1048576", "TRAWL_DOCUMENT_MAX_PAGES": "20", "TRAWL_DOCUMENT_TIMEOUT": "5s",
		"TRAWL_DOCUMENT_WORKERS": "4", "TRAWL_DOCUMENT_MEMORY_BYTES": "268435456"}
	c, err := d.FromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if c.DocumentMaxBytes != 1<<20 || c.DocumentMaxPages != 20 || c.DocumentTimeout != 5*time.Second || c.DocumentWorkers != 4 || c.DocumentMemoryBytes != 256<<20 {
		t.Fatalf("from env %+v", c)
	}
	if _, err := d.FromEnv(func(k string) string { return map[string]string{"TRAWL_DOCUMENT_MAX_PAGES": "0"}[k] }); err == nil {
		t.Fatal("a zero page limit was accepted")
	}
	for _, tc := range []struct {
		env  map[string]string
		want int64 // -1: refused
	}{
		{map[string]string{}, 0},
		{map[string]string{"TRAWL_DOCUMENT_WARM_WORKERS": "0"}, 0},
		{map[string]string{"TRAWL_DOCUMENT_WARM_WORKERS": "1"}, 1},
		{map[string]string{"TRAWL_DOCUMENT_WARM_WORKERS": "2"}, 2},
		{map[string]string{"TRAWL_DOCUMENT_WARM_WORKERS": "3"}, -1}, // more than the 2 workers
		{map[string]string{"TRAWL_DOCUMENT_WARM_WORKERS": "3", "TRAWL_DOCUMENT_WORKERS": "4"}, 3},
		{map[string]string{"TRAWL_DOCUMENT_WARM_WORKERS": "-1"}, -1},
		{map[string]string{"TRAWL_DOCUMENT_WARM_WORKERS": "one"}, -1},
	} {
		c, err := d.FromEnv(func(k string) string { return tc.env[k] })
		switch {
		case tc.want < 0 && err == nil:
			t.Errorf("%v accepted", tc.env)
		case tc.want < 0 && !strings.Contains(err.Error(), "TRAWL_DOCUMENT_WARM_WORKERS"):
			t.Errorf("%v: error %q does not name the setting", tc.env, err)
		case tc.want >= 0 && err != nil:
			t.Errorf("%v: %v", tc.env, err)
		case tc.want >= 0 && c.DocumentWarmWorkers != tc.want:
			t.Errorf("%v: %d warm workers, want %d", tc.env, c.DocumentWarmWorkers, tc.want)
		}
	}
}
