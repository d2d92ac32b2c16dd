package clientcmd_test

import (
	"bytes"
	"regexp"
	"testing"

	"github.com/trawlhq/trawl/app"
	"github.com/trawlhq/trawl/app/clientcmd"
	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/memstore"
)

// TestAPIMonitors: the monitor commands against the real handler.
func TestAPIMonitors(t *testing.T) {
	e := apitest.Start(t, memstore.New(), apitest.Options{NoWorker: true})
	_, tok := e.Account("cli@example.com", "business")
	env := map[string]string{"TRAWL_API_URL": e.Server.URL, "TRAWL_API_KEY": tok}
	var out, errb bytes.Buffer
	code := app.CLI{Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] }, Client: clientcmd.Commands{}}.Main(
		[]string{"api", "monitors", "create", "--url", "http://shore.test/tides", "--url", "http://shore.test/crabs", "--schedule", "0 */6 * * *", "--email", "--name", "Shore"})
	id := regexp.MustCompile(`monitor (mon_[0-9a-f]+): active, next check 2026-06-15T18:00:00.000000Z`).FindStringSubmatch(out.String())
	if code != 0 || id == nil {
		t.Fatalf("create = %d %q %q", code, out.String(), errb.String())
	}
	checkCommands(t, env, []command{
		{[]string{"api", "monitors", "create", "--crawl", "http://shore.test/", "--limit", "5", "--schedule", "@daily", "--email", "--all-pages", "--json"}, 0, `"changes_only": false`, ""},
		{[]string{"api", "monitors", "create", "--url", "http://shore.test/tides", "--schedule", "* * * * *", "--email"}, 3, "", "schedule:"},
		{[]string{"api", "monitors", "create", "--url", "http://shore.test/tides"}, 2, "", "--schedule"},
		{[]string{"api", "monitors", "create", "--url", "http://shore.test/tides", "--limit", "5", "--schedule", "@daily", "--email"}, 2, "", "--limit is the crawl's page limit"},
		{[]string{"api", "monitors", "list"}, 0, id[1] + "\tactive\t2026-06-15T18:00:00.000000Z\t0 */6 * * *\tShore\n", ""},
		{[]string{"api", "monitors", "get", id[1], "--json"}, 0, `"schedule": "0 */6 * * *"`, ""},
		{[]string{"api", "monitors", "pause", id[1]}, 0, "monitor " + id[1] + ": paused, next check none", ""},
		{[]string{"api", "monitors", "resume", id[1]}, 0, "monitor " + id[1] + ": active, next check 2026-06-15T18:00:00.000000Z", ""},
		{[]string{"api", "monitors", "delete", id[1]}, 0, "monitor " + id[1] + " deleted\n", ""},
		{[]string{"api", "monitors", "get", id[1]}, 3, "", "404"},
		{[]string{"api", "monitors"}, 2, "", "api monitors needs a command"},
	})
}
