package mcpserver_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMonitorTools: an agent creates, lists, reads, pauses, resumes and
// deletes a monitor, and hears why a bad one is refused.
func TestMonitorTools(t *testing.T) {
	w := Start(t)
	session := inMemory(t, w)
	ctx := context.Background()
	call := func(tool string, args map[string]any) (map[string]any, *mcp.CallToolResult) {
		t.Helper()
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		raw, _ := json.Marshal(res.StructuredContent)
		var out map[string]any
		_ = json.Unmarshal(raw, &out)
		return out, res
	}
	if _, res := call("monitor_create", map[string]any{"urls": []string{"http://shore.test/tides"}, "schedule": "* * * * *", "email": true}); !res.IsError || !strings.Contains(text(res), "schedule:") {
		t.Fatalf("every minute: %s", text(res))
	}
	m, res := call("monitor_create", map[string]any{"name": "Tides", "urls": []string{"http://shore.test/tides"}, "schedule": "0 */6 * * *", "email": true, "changes_only": false})
	id, _ := m["id"].(string)
	if res.IsError || !strings.HasPrefix(id, "mon_") || m["status"] != "active" || m["changes_only"] != false || m["next_run_at"] != "2026-06-15T18:00:00.000000Z" {
		t.Fatalf("monitor_create: %v %s", m, text(res))
	}
	c, res := call("monitor_create", map[string]any{"crawl": map[string]any{"url": "http://shore.test/", "limit": 5}, "schedule": "@daily", "email": true})
	if crawl, _ := c["crawl"].(map[string]any); res.IsError || crawl["url"] != "http://shore.test/" || crawl["limit"] != 5.0 {
		t.Fatalf("a crawl monitor: %v %s", c, text(res))
	}
	if l, res := call("monitor_list", map[string]any{"per_page": 1}); res.IsError || l["total"] != 2.0 || len(l["data"].([]any)) != 1 {
		t.Fatalf("monitor_list: %v %s", l, text(res))
	}
	if g, res := call("monitor_get", map[string]any{"id": id}); res.IsError || g["name"] != "Tides" {
		t.Fatalf("monitor_get: %v %s", g, text(res))
	}
	if p, res := call("monitor_update", map[string]any{"id": id, "status": "paused"}); res.IsError || p["status"] != "paused" || p["next_run_at"] != nil || p["paused_reason"] == nil {
		t.Fatalf("pause: %v %s", p, text(res))
	}
	if _, res := call("monitor_update", map[string]any{"id": id, "status": "sleeping"}); !res.IsError {
		t.Fatalf("a status outside the enum was taken: %s", text(res))
	}
	if p, res := call("monitor_update", map[string]any{"id": id, "status": "active", "schedule": "@hourly"}); res.IsError || p["status"] != "active" || p["schedule"] != "@hourly" {
		t.Fatalf("resume: %v %s", p, text(res))
	}
	if d, res := call("monitor_delete", map[string]any{"id": id}); res.IsError || d["deleted"] != true {
		t.Fatalf("monitor_delete: %v %s", d, text(res))
	}
	if _, res := call("monitor_get", map[string]any{"id": id}); !res.IsError || !strings.Contains(text(res), "404") {
		t.Fatalf("a deleted monitor: %s", text(res))
	}
}
